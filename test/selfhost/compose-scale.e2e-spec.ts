// docker/compose.scale.yml, read as Docker Compose reads it: two of each app on a Redis Cluster
// and an S3 store, every app's settings accepted by the apps' own configuration, no disk shared
// between app containers.
import { loadConfig } from '@app/domain';
import { readCompose, serviceEnv } from './compose';

const FILE = 'docker/compose.scale.yml';
const SECRETS = {
  ENCRYPTION_KEY: Buffer.alloc(32, 3).toString('base64'),
  POSTGRES_PASSWORD: 'pg-secret',
  REDIS_PASSWORD: 'redis-secret',
  S3_SECRET_KEY: 's3-secret',
};
const APPS = ['api', 'worker', 'smtp-relay'];

describe('docker/compose.scale.yml', () => {
  const file = readCompose(SECRETS, FILE);
  const appServices = Object.keys(file.services).filter((name) =>
    APPS.some((app) => name.startsWith(`${app}-`)),
  );

  it('needs the secrets docker/init writes', () => {
    for (const name of Object.keys(SECRETS))
      expect(() => readCompose({ ...SECRETS, [name]: undefined }, FILE)).toThrow(name);
  });

  it('runs two replicas of each app, each configured for the cluster and the object store', () => {
    expect(appServices.sort()).toEqual(APPS.flatMap((a) => [`${a}-1`, `${a}-2`]).sort());
    for (const name of appServices) {
      const config = loadConfig(serviceEnv(file, name));
      expect({ name, redis: config.redisUrl }).toEqual({
        name,
        redis: `redis+cluster://:${SECRETS.REDIS_PASSWORD}@redis-1:6379,redis-2:6379,redis-3:6379`,
      });
      expect(config.storage).toMatchObject({ kind: 's3', bucket: 'messaging' });
      expect(config.runMigrations).toBe(false);
    }
  });

  it('shares no volume between app containers, and starts them after the migration', () => {
    for (const name of appServices) {
      expect({ name, volumes: file.services[name].volumes ?? [] }).toEqual({ name, volumes: [] });
      expect(file.services[name].depends_on).toMatchObject({
        migrate: { condition: 'service_completed_successfully' },
      });
    }
    expect(file.services.migrate.depends_on).toMatchObject({
      'redis-cluster': { condition: 'service_completed_successfully' },
      'minio-bucket': { condition: 'service_completed_successfully' },
    });
  });

  it('forms the Redis Cluster from three masters', () => {
    const masters = ['redis-1', 'redis-2', 'redis-3'];
    for (const m of masters)
      expect(file.services[m].command).toEqual(
        expect.arrayContaining(['--cluster-enabled', 'yes', '--cluster-announce-hostname', m]),
      );
    const create = (file.services['redis-cluster'].command as string[]).join(' ');
    expect(create).toContain(`--cluster create ${masters.map((m) => `${m}:6379`).join(' ')}`);
  });
});
