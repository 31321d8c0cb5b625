import Redis, { Cluster } from 'ioredis';
import { ConfigError, loadConfig } from '../config/app-config';
import {
  bullQueuePrefix,
  isRedisCluster,
  openRedis,
  parseRedisUrl,
  type RedisRole,
} from './redis-client';

const KEY = Buffer.alloc(32, 7).toString('base64');

describe('parseRedisUrl', () => {
  it('keeps a single server URL as it is', () => {
    expect(parseRedisUrl('redis://127.0.0.1:6379/9')).toEqual({
      cluster: false,
      url: 'redis://127.0.0.1:6379/9',
    });
    expect(parseRedisUrl('rediss://:pw@cache.example.com:6380')).toEqual({
      cluster: false,
      url: 'rediss://:pw@cache.example.com:6380',
    });
  });

  it('reads a cluster URL: seed nodes, user and password, TLS for rediss+cluster', () => {
    expect(parseRedisUrl('redis+cluster://127.0.0.1:7000,127.0.0.1:7001,127.0.0.1')).toEqual({
      cluster: true,
      nodes: [
        { host: '127.0.0.1', port: 7000 },
        { host: '127.0.0.1', port: 7001 },
        { host: '127.0.0.1', port: 6379 },
      ],
      tls: false,
    });
    expect(
      parseRedisUrl('rediss+cluster://app:p%40ss%3Aword@a.example.com:6380,[::1]:7002/'),
    ).toEqual({
      cluster: true,
      nodes: [
        { host: 'a.example.com', port: 6380 },
        { host: '::1', port: 7002 },
      ],
      username: 'app',
      password: 'p@ss:word',
      tls: true,
    });
    expect(parseRedisUrl('REDIS+CLUSTER://:secret@h1:1/0')).toEqual({
      cluster: true,
      nodes: [{ host: 'h1', port: 1 }],
      password: 'secret',
      tls: false,
    });
  });

  it.each([
    ['a database other than 0', 'redis+cluster://h1:7000/3'],
    ['options', 'redis+cluster://h1:7000?tls=true'],
    ['no seed', 'redis+cluster://'],
    ['an empty seed', 'redis+cluster://h1:7000,,h2:7001'],
    ['a port out of range', 'redis+cluster://h1:70000'],
    ['port 0', 'redis+cluster://h1:0'],
    ['a port that is not a number', 'redis+cluster://h1:abc'],
  ])('refuses a cluster URL with %s', (_what, url) => {
    expect(() => parseRedisUrl(url)).toThrow(/seed node|must be redis\+cluster/);
  });

  it('refuses other schemes and non-URLs', () => {
    expect(() => parseRedisUrl('http://127.0.0.1:6379')).toThrow(/must use one of redis:/);
    expect(() => parseRedisUrl('127.0.0.1:6379')).toThrow();
    expect(() => parseRedisUrl('not a url')).toThrow(/valid URL/);
  });
});

describe('REDIS_URL in the configuration', () => {
  it('defaults to the local server and accepts every form', () => {
    expect(loadConfig({ ENCRYPTION_KEY: KEY }).redisUrl).toBe('redis://127.0.0.1:6379');
    for (const url of [
      'redis://r:6379',
      'rediss://r:6380',
      'redis+cluster://r1:7000,r2:7000',
      'rediss+cluster://u:p@r1:7000',
    ]) {
      expect(loadConfig({ ENCRYPTION_KEY: KEY, REDIS_URL: url }).redisUrl).toBe(url);
    }
  });

  it('names REDIS_URL when it is wrong', () => {
    const load = (url: string) => () => loadConfig({ ENCRYPTION_KEY: KEY, REDIS_URL: url });
    expect(load('memcached://h:1')).toThrow(ConfigError);
    expect(load('redis+cluster://h:1/2')).toThrow(/REDIS_URL must be redis\+cluster:\/\//);
  });
});

describe('bullQueuePrefix', () => {
  it('keeps BULL_PREFIX on one server', () => {
    expect(bullQueuePrefix({ redisUrl: 'redis://127.0.0.1:6379', bullPrefix: 'mp' }, 'email')).toBe(
      'mp',
    );
    expect(isRedisCluster('rediss://h:1')).toBe(false);
  });

  it('gives each queue its own hash tag on a cluster', () => {
    const config = { redisUrl: 'rediss+cluster://h1:7000', bullPrefix: 'mp' };
    expect(bullQueuePrefix(config, 'email')).toBe('{mp:email}');
    expect(bullQueuePrefix(config, 'imports')).toBe('{mp:imports}');
  });
});

describe('openRedis', () => {
  // Nothing listens there: the tests read the options and disconnect at once.
  const opened = (url: string, role: RedisRole) => {
    const client = openRedis(url, role);
    client.on('error', () => undefined);
    client.disconnect();
    return client;
  };

  it('opens one server with the role options', () => {
    const shared = opened('redis://127.0.0.1:1/3', 'shared') as Redis;
    expect(shared).not.toBeInstanceOf(Cluster);
    expect(shared.options).toMatchObject({
      db: 3,
      maxRetriesPerRequest: 2,
      enableOfflineQueue: true,
      enableAutoPipelining: true,
    });
    const blocking = opened('redis://127.0.0.1:1', 'bull-blocking') as Redis;
    expect(blocking.options).toMatchObject({
      maxRetriesPerRequest: null,
      enableReadyCheck: false,
      enableAutoPipelining: false,
    });
  });

  it('opens a cluster from the seed nodes: masters only, TLS, hostnames kept, Bull options per node', () => {
    const shared = opened('rediss+cluster://app:pw@cache.invalid:6380,10.0.0.2', 'shared');
    expect(shared).toBeInstanceOf(Cluster);
    const { options } = shared as Cluster;
    expect(options).toMatchObject({ scaleReads: 'master', enableAutoPipelining: true });
    expect(options.redisOptions).toMatchObject({
      username: 'app',
      password: 'pw',
      tls: {},
      maxRetriesPerRequest: 2,
    });
    const looked: string[] = [];
    options.dnsLookup!('cache.invalid', (_err, address) => looked.push(address));
    expect(looked).toEqual(['cache.invalid']);

    const subscriber = opened('redis+cluster://127.0.0.1:1', 'bull-subscriber') as Cluster;
    expect(subscriber.options.enableReadyCheck).toBe(false);
    expect(subscriber.options.redisOptions).toMatchObject({
      maxRetriesPerRequest: null,
      enableReadyCheck: false,
    });
    expect(subscriber.options.redisOptions).not.toHaveProperty('tls');
  });
});
