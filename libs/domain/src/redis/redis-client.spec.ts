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
      kind: 'server',
      url: 'redis://127.0.0.1:6379/9',
    });
    expect(parseRedisUrl('rediss://:pw@cache.example.com:6380')).toEqual({
      kind: 'server',
      url: 'rediss://:pw@cache.example.com:6380',
    });
  });

  it('reads a cluster URL: seed nodes, user and password, TLS for rediss+cluster', () => {
    expect(parseRedisUrl('redis+cluster://127.0.0.1:7000,127.0.0.1:7001,127.0.0.1')).toEqual({
      kind: 'cluster',
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
      kind: 'cluster',
      nodes: [
        { host: 'a.example.com', port: 6380 },
        { host: '::1', port: 7002 },
      ],
      username: 'app',
      password: 'p@ss:word',
      tls: true,
    });
    expect(parseRedisUrl('REDIS+CLUSTER://:secret@h1:1/0')).toEqual({
      kind: 'cluster',
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

  it('reads a sentinel URL: sentinels (port 26379 unless said), master name, database, TLS', () => {
    expect(parseRedisUrl('redis+sentinel://10.0.0.1:26380,sentinel.example.com/mymaster')).toEqual({
      kind: 'sentinel',
      sentinels: [
        { host: '10.0.0.1', port: 26380 },
        { host: 'sentinel.example.com', port: 26379 },
      ],
      name: 'mymaster',
      db: 0,
      tls: false,
    });
    expect(
      parseRedisUrl(
        'rediss+sentinel://app:p%40ss+w@[::1]:26379/cache%2Fmain/4?sentinelPassword=s%26+t',
      ),
    ).toEqual({
      kind: 'sentinel',
      sentinels: [{ host: '::1', port: 26379 }],
      name: 'cache/main',
      db: 4,
      username: 'app',
      password: 'p@ss+w',
      sentinelPassword: 's&+t',
      tls: true,
    });
    expect(parseRedisUrl('REDIS+SENTINEL://:pw@s1:1/mp/')).toMatchObject({
      kind: 'sentinel',
      sentinels: [{ host: 's1', port: 1 }],
      name: 'mp',
      db: 0,
      password: 'pw',
    });
  });

  it.each([
    ['no master name', 'redis+sentinel://s1:26379', /names no master/],
    ['an empty master name', 'redis+sentinel://s1:26379/', /names no master/],
    [
      'a database that is not a number',
      'redis+sentinel://s1/mp/x',
      /database that is not a number/,
    ],
    ['a path past the database', 'redis+sentinel://s1/mp/0/1', /must be redis\+sentinel/],
    ['an empty sentinel', 'redis+sentinel://s1,,s2/mp', /seed node that is not host:port: ""/],
    ['a port out of range', 'redis+sentinel://s1:70000/mp', /seed node/],
    [
      'another option',
      'redis+sentinel://s1/mp?tls=true',
      /only the sentinelPassword option, not "tls"/,
    ],
    ['a bad percent-encoding', 'redis+sentinel://:%zz@s1/mp', /malformed percent-encoding/],
  ])('refuses a sentinel URL with %s', (_what, url, message) => {
    expect(() => parseRedisUrl(url)).toThrow(message);
  });

  it('keeps the passwords out of its errors', () => {
    expect(() => parseRedisUrl('redis+sentinel://u:hunter2@s1:0/mp')).toThrow(/"s1:0"/);
    expect(() => parseRedisUrl('redis+sentinel://u:hunter2@s1:0/mp')).not.toThrow(/hunter2/);
    expect(() => parseRedisUrl('redis+sentinel://s1/mp?sentinelPassword=hunter2&x=1')).not.toThrow(
      /hunter2/,
    );
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
      'redis+sentinel://s1:26379,s2:26379/mymaster',
      'rediss+sentinel://u:p@s1/mymaster/2?sentinelPassword=q',
    ]) {
      expect(loadConfig({ ENCRYPTION_KEY: KEY, REDIS_URL: url }).redisUrl).toBe(url);
    }
  });

  it('names REDIS_URL when it is wrong', () => {
    const load = (url: string) => () => loadConfig({ ENCRYPTION_KEY: KEY, REDIS_URL: url });
    expect(load('memcached://h:1')).toThrow(ConfigError);
    expect(load('redis+cluster://h:1/2')).toThrow(/REDIS_URL must be redis\+cluster:\/\//);
    expect(load('redis+sentinel://s1:26379')).toThrow(/REDIS_URL names no master/);
  });
});

describe('bullQueuePrefix', () => {
  it('keeps BULL_PREFIX on one server', () => {
    expect(bullQueuePrefix({ redisUrl: 'redis://127.0.0.1:6379', bullPrefix: 'mp' }, 'email')).toBe(
      'mp',
    );
    expect(isRedisCluster('rediss://h:1')).toBe(false);
    const sentinel = { redisUrl: 'redis+sentinel://s1:26379/mymaster', bullPrefix: 'mp' };
    expect(isRedisCluster(sentinel.redisUrl)).toBe(false);
    expect(bullQueuePrefix(sentinel, 'email')).toBe('mp');
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

  // As `opened`; ioredis leaves a 2 s timer behind an unreachable sentinel's closed socket, run
  // here on a fake clock so that the file ends at once.
  const openedSentinel = async (url: string, role: RedisRole) => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    try {
      const client = openRedis(url, role) as Redis;
      client.on('error', () => undefined);
      const ended = new Promise((resolve) => client.once('end', resolve));
      client.disconnect();
      await ended;
      jest.runOnlyPendingTimers();
      return client;
    } finally {
      jest.useRealTimers();
    }
  };

  it('opens a Sentinel-backed server: master name, database, credentials, role options', async () => {
    const shared = await openedSentinel(
      'redis+sentinel://app:pw@127.0.0.1:1,127.0.0.2/mymaster/2',
      'shared',
    );
    expect(shared).not.toBeInstanceOf(Cluster);
    expect(shared.options).toMatchObject({
      sentinels: [
        { host: '127.0.0.1', port: 1 },
        { host: '127.0.0.2', port: 26379 },
      ],
      name: 'mymaster',
      role: 'master',
      db: 2,
      username: 'app',
      password: 'pw',
      maxRetriesPerRequest: 2,
      enableAutoPipelining: true,
      enableTLSForSentinelMode: false,
      failoverDetector: true,
    });
    expect(shared.options.sentinelPassword).toBeUndefined();
    expect(shared.options).not.toHaveProperty('tls');

    const blocking = await openedSentinel(
      'rediss+sentinel://127.0.0.1:1/mymaster?sentinelPassword=s',
      'bull-blocking',
    );
    expect(blocking.options).toMatchObject({
      sentinelPassword: 's',
      tls: {},
      enableTLSForSentinelMode: true,
      sentinelTLS: {},
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
