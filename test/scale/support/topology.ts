// The scale-out topology (§18) as built processes on loopback: a 3-master Redis Cluster, an S3
// store (s3rver), one PostgreSQL database, and two of each app (api, worker, smtp-relay), each
// replica with a DATA_DIR of its own, so that nothing but the engines is shared. Replica `i`
// of each app is "host i".
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'pg';
import { ApiClient, dataOf } from '../../resilience/support/api-client';
import { LogBook, ManagedProcess } from '../../resilience/support/processes';
import { startSmtpSink, SmtpSink } from '../../sending/support/smtp-sink';
import { ensureBuilt, freePorts, freshDatabase, ROOT } from '../../selfhost/support';
import { startRedisCluster, RedisCluster } from '../../support/redis-cluster';
import { startS3Server, S3Server } from '../../support/s3-server';
import { waitFor } from '../../support/wait-for';

export type AppName = 'api' | 'worker' | 'smtp-relay';

/** One replica: its process, and where it listens. */
export interface Replica {
  app: AppName;
  index: number;
  name: string;
  proc: ManagedProcess;
  dataDir: string;
  /** api: its base URL; relay: its SMTP port; worker: its health port. */
  port: number;
}

export interface Topology {
  apis: Replica[];
  workers: Replica[];
  relays: Replica[];
  cluster: RedisCluster;
  s3: S3Server;
  sink: SmtpSink;
  db: Pool;
  logs: LogBook;
  /** The JSON log lines a replica wrote, parsed. */
  logLines(name: string): Record<string, unknown>[];
  apiUrl(index: number): string;
  /**
   * An organization without sending limits and an API key of every scope (the admin CLI, as an
   * operator creates them).
   */
  createOrg(name: string): { id: string; key: string };
  admin(args: string[]): Record<string, unknown>;
  /** Waits until a restarted replica says it is ready again. */
  restart(replica: Replica, signal: NodeJS.Signals): Promise<void>;
  stop(): Promise<void>;
}

/** Periods short enough that a test sees several of each periodic task. */
export const PERIOD_MS = 1500;

const READY: Record<AppName, RegExp> = {
  api: /"msg":"api ready"/,
  worker: /"msg":"worker ready"/,
  'smtp-relay': /"msg":"smtp-relay ready"/,
};

const dist = (app: AppName) => join(ROOT, `dist/apps/${app}/apps/${app}/src/main.js`);

export async function startTopology(): Promise<Topology> {
  ensureBuilt('api', 'worker', 'smtp-relay');
  const root = mkdtempSync(join(tmpdir(), 'mp-scale-'));
  const logs = new LogBook(root);
  const [cluster, s3, sink, database] = await Promise.all([
    startRedisCluster(),
    startS3Server(),
    startSmtpSink(),
    freshDatabase(),
  ]);
  const ports = await freePorts(10);
  const common: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    NODE_ENV: 'development',
    LOG_LEVEL: 'info',
    DATABASE_URL: database.url,
    RUN_MIGRATIONS: 'false',
    // Six processes on the run's PostgreSQL, next to the other test files' connections.
    DB_POOL_SIZE: '5',
    REDIS_URL: cluster.url,
    BULL_PREFIX: 'mp',
    ...s3.env,
    ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
    SMTP_OUTBOUND_URL: sink.url,
    SEND_IP_ALLOWLIST: '127.0.0.1,::1',
    SENDING_DOMAIN_POLICY: 'allow',
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    // Everything that runs on a timer, at a period a test can watch several times over.
    EMAIL_SWEEP_INTERVAL_MS: String(PERIOD_MS),
    EMAIL_SWEEP_GRACE_MS: '2000',
    DELIVERY_LEASE_MS: '5000',
    JOB_LOCK_MS: '4000',
    DELIVERY_RETRY_BASE_MS: '500',
    CAMPAIGN_POLL_INTERVAL_MS: '300',
    DOMAIN_CHECK_INTERVAL_MS: String(PERIOD_MS),
    MESSAGE_RETENTION_INTERVAL_MS: String(PERIOD_MS),
    WEBHOOK_SCAN_INTERVAL_MS: '500',
    INBOUND_POLL_INTERVAL_MS: String(PERIOD_MS),
    IMPORT_LEASE_SECONDS: '5',
    IMPORT_SWEEP_SECONDS: '2',
  };
  execFileSync(process.execPath, [join(ROOT, 'scripts/migrate.js')], {
    env: common,
    stdio: 'ignore',
  });

  const replicas: Replica[] = [];
  const start = (app: AppName, index: number, port: number, own: NodeJS.ProcessEnv) => {
    const name = `${app}-${index + 1}`;
    const dataDir = join(root, name);
    const env = { ...common, DATA_DIR: dataDir, ...own };
    const proc = new ManagedProcess(name, process.execPath, [dist(app)], env, logs);
    replicas.push({ app, index, name, proc, dataDir, port });
    proc.start();
  };
  for (const i of [0, 1]) {
    const [api, health, smtp, inbound] = ports.slice(i * 4, i * 4 + 4);
    start('api', i, api, { PORT: String(api), PUBLIC_BASE_URL: `http://127.0.0.1:${api}` });
    start('worker', i, health, { WORKER_HEALTH_PORT: String(health) });
    start('smtp-relay', i, smtp, {
      SMTP_PORT: String(smtp),
      INBOUND_SMTP_PORT: String(inbound),
    });
  }

  const ready = (r: Replica, since: number) =>
    waitFor(
      () =>
        logs.entries.slice(since).some((e) => e.process === r.name && READY[r.app].test(e.line)),
      {
        what: `${r.name} to be ready`,
        timeoutMs: 90_000,
        everyMs: 100,
      },
    );
  const stop = async () => {
    await Promise.all(replicas.map((r) => r.proc.stop('SIGTERM', 10_000)));
    await db.end();
    await Promise.all([cluster.stop(), s3.stop(), sink.close(), database.drop()]);
    await logs.close();
    // SCALE_KEEP_LOGS=1 keeps every replica's log (<tmp>/mp-scale-*/<replica>.log) for a look.
    if (!process.env.SCALE_KEEP_LOGS) rmSync(root, { recursive: true, force: true });
  };
  const db = new Pool({ connectionString: database.url, max: 4 });
  try {
    await Promise.all(replicas.map((r) => ready(r, 0)));
  } catch (err) {
    await stop();
    throw err;
  }

  const admin = (args: string[]) => {
    const out = execFileSync(
      process.execPath,
      [join(ROOT, 'scripts/admin.js'), ...args, '--json'],
      {
        env: { ...common, DATA_DIR: join(root, 'admin') },
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    return JSON.parse(out.trim().split('\n').pop()!) as Record<string, unknown>;
  };
  const byApp = (app: AppName) => replicas.filter((r) => r.app === app);
  return {
    apis: byApp('api'),
    workers: byApp('worker'),
    relays: byApp('smtp-relay'),
    cluster,
    s3,
    sink,
    db,
    logs,
    logLines: (name) =>
      logs.entries
        .filter((e) => e.process === name && e.line.startsWith('{'))
        .map((e) => JSON.parse(e.line) as Record<string, unknown>),
    apiUrl: (index) => `http://127.0.0.1:${byApp('api')[index].port}`,
    createOrg: (name) => {
      const { organization } = admin(['create-org', '--name', name]) as {
        organization: { id: string };
      };
      // A key whose own budget (300 a minute by default) is not what a test measures.
      const { apiKey } = admin([
        'create-key',
        ...['--org', organization.id, '--name', 'scale', '--scopes', 'all'],
        ...['--per-minute', '1000000'],
      ]) as { apiKey: { key: string } };
      // No sending window in the way either; a test of limits sets its own.
      admin([
        'set-limits',
        ...['--org', organization.id, '--per-second', 'unlimited', '--per-minute', 'unlimited'],
        ...['--per-hour', 'unlimited', '--per-day', 'unlimited', '--per-month', 'unlimited'],
      ]);
      return { id: organization.id, key: apiKey.key };
    },
    admin,
    restart: async (replica, signal) => {
      await replica.proc.stop(signal);
      const since = logs.entries.length;
      replica.proc.start();
      await ready(replica, since);
    },
    stop,
  };
}

/** The API client of one api replica, with an organization's key. */
export function client(t: Topology, index: number, key: string): ApiClient {
  return new ApiClient(t.apiUrl(index)).withKey(key);
}

export { dataOf };
