// Every Redis connection of the platform comes from openRedis: one server (`redis://`,
// `rediss://`), a Redis Cluster named by seed nodes (`redis+cluster://h1:p1,h2:p2`, TLS with
// `rediss+cluster://`) or the master of a Sentinel group (`redis+sentinel://s1:p1,s2:p2/<name>`,
// TLS with `rediss+sentinel://`), for one of the roles below.
import Redis, { Cluster, ClusterOptions, RedisOptions } from 'ioredis';

export type RedisClient = Redis | Cluster;

/**
 * - shared: the process's one connection for limit counters and pub/sub.
 * - bull-client, bull-subscriber, bull-blocking: Bull's three connections (client, subscriber,
 *   bclient), which Bull requires without a ready check or a retry limit per command.
 */
export type RedisRole = 'shared' | 'bull-client' | 'bull-subscriber' | 'bull-blocking';

export interface RedisNode {
  host: string;
  port: number;
}

/** User and password of the data nodes (a cluster's nodes, a Sentinel group's master). */
interface RedisAuth {
  username?: string;
  password?: string;
}

/** What REDIS_URL names. */
export type RedisTarget =
  | { kind: 'server'; url: string }
  | ({ kind: 'cluster'; nodes: RedisNode[]; tls: boolean } & RedisAuth)
  | ({
      kind: 'sentinel';
      /** The sentinels to ask for the master. */
      sentinels: RedisNode[];
      /** The master group's name, as in `sentinel monitor <name> …`. */
      name: string;
      db: number;
      /** Of the sentinels, when they require one (`?sentinelPassword=`). */
      sentinelPassword?: string;
      tls: boolean;
    } & RedisAuth);

const CLUSTER_SCHEME = /^(rediss?)\+cluster:\/\//i;
// scheme://[user[:password]@]seed[,seed…][/ or /0]
const CLUSTER_URL = /^(rediss?)\+cluster:\/\/(?:([^@/?#]*)@)?([^@/?#]+)(?:\/0?)?$/i;
const SENTINEL_SCHEME = /^(rediss?)\+sentinel:\/\//i;
// scheme://[user[:password]@]sentinel[,sentinel…]/name[/db][?sentinelPassword=…]
const SENTINEL_URL =
  /^(rediss?)\+sentinel:\/\/(?:([^@/?#]*)@)?([^@/?#]+)(?:\/([^/?#]*)(?:\/([^/?#]*))?)?(?:\?([^#]*))?$/i;
const SENTINEL_FORM =
  'must be redis+sentinel://[user:password@]host:port,host:port/<master-name>[/<db>][?sentinelPassword=…]';

/** Parses REDIS_URL; throws an Error saying what is wrong (the config names the variable). */
export function parseRedisUrl(raw: string): RedisTarget {
  if (CLUSTER_SCHEME.test(raw)) {
    const m = CLUSTER_URL.exec(raw);
    if (!m) {
      throw new Error(
        'must be redis+cluster://[user:password@]host:port,host:port (a cluster has only database 0 and takes no options)',
      );
    }
    const [, scheme, auth, seeds] = m;
    return {
      kind: 'cluster',
      nodes: seeds.split(',').map((seed) => seedNode(seed, 6379)),
      ...userInfo(auth),
      tls: scheme.toLowerCase() === 'rediss',
    };
  }
  if (SENTINEL_SCHEME.test(raw)) return parseSentinelUrl(raw);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error('must be a valid URL');
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
    throw new Error(
      'must use one of redis:, rediss:, redis+cluster:, rediss+cluster:, redis+sentinel:, rediss+sentinel:',
    );
  }
  return { kind: 'server', url: raw };
}

function parseSentinelUrl(raw: string): RedisTarget {
  const m = SENTINEL_URL.exec(raw);
  if (!m) throw new Error(SENTINEL_FORM);
  const [, scheme, auth, seeds, rawName, rawDb, query] = m;
  const name = rawName ? decode(rawName) : '';
  if (!name) throw new Error(`names no master: ${SENTINEL_FORM}`);
  if (rawDb && !/^\d{1,5}$/.test(rawDb)) {
    throw new Error(`has a database that is not a number: "${rawDb}"`);
  }
  // Decoded as the user's password is (a `+` stays a `+`), not as a form.
  let sentinelPassword = '';
  for (const option of query ? query.split('&') : []) {
    const [key, value] = option.split(/=(.*)/s);
    if (key !== 'sentinelPassword') {
      throw new Error(`takes only the sentinelPassword option, not "${key}"`);
    }
    sentinelPassword = decode(value ?? '');
  }
  return {
    kind: 'sentinel',
    sentinels: seeds.split(',').map((seed) => seedNode(seed, 26379)),
    name,
    db: rawDb ? Number(rawDb) : 0,
    ...userInfo(auth),
    ...(sentinelPassword ? { sentinelPassword } : {}),
    tls: scheme.toLowerCase() === 'rediss',
  };
}

/** `user:password` of a URL, percent-decoded; empty parts left out. */
function userInfo(auth: string | undefined): RedisAuth {
  const colon = auth?.indexOf(':') ?? -1;
  const username = auth ? decode(colon < 0 ? auth : auth.slice(0, colon)) : '';
  const password = auth && colon >= 0 ? decode(auth.slice(colon + 1)) : '';
  return { ...(username ? { username } : {}), ...(password ? { password } : {}) };
}

function decode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    throw new Error('has a malformed percent-encoding in its user, a password or its master name');
  }
}

/** One seed, `host:port`, `[v6]:port` or `host` (`defaultPort`). */
function seedNode(seed: string, defaultPort: number): RedisNode {
  let url: URL | undefined;
  try {
    url = new URL(`redis://${seed.trim()}`);
  } catch {
    url = undefined;
  }
  const port = Number(url?.port || defaultPort);
  if (!url || !url.hostname || url.pathname || url.username || url.password || port < 1) {
    throw new Error(`has a seed node that is not host:port: "${seed}"`);
  }
  return { host: url.hostname.replace(/^\[(.*)\]$/, '$1'), port };
}

/** Whether REDIS_URL names a Redis Cluster. */
export function isRedisCluster(url: string): boolean {
  return CLUSTER_SCHEME.test(url);
}

// Options of each node connection (for a cluster, each of its connections to a node).
const CONNECTION: Record<RedisRole, RedisOptions> = {
  shared: { maxRetriesPerRequest: 2, connectTimeout: 2000 },
  'bull-client': { maxRetriesPerRequest: null, enableReadyCheck: false },
  'bull-subscriber': { maxRetriesPerRequest: null, enableReadyCheck: false },
  'bull-blocking': { maxRetriesPerRequest: null, enableReadyCheck: false },
};

// Commands issued in one event-loop turn (the limit checks of concurrent requests) go out in one
// write (docs/performance.md, kept optimisations); Bull batches its own.
const AUTO_PIPELINING: Record<RedisRole, boolean> = {
  shared: true,
  'bull-client': false,
  'bull-subscriber': false,
  'bull-blocking': false,
};

/** Opens a connection (or a cluster client) to REDIS_URL for `role`. */
export function openRedis(url: string, role: RedisRole): RedisClient {
  const target = parseRedisUrl(url);
  const enableAutoPipelining = AUTO_PIPELINING[role];
  const common = { enableOfflineQueue: true, lazyConnect: false, enableAutoPipelining };
  if (target.kind === 'server') return new Redis(url, { ...CONNECTION[role], ...common });
  if (target.kind === 'sentinel') {
    // A plain Redis client that asks the sentinels for the master on every (re)connection.
    return new Redis({
      ...CONNECTION[role],
      ...common,
      sentinels: target.sentinels,
      name: target.name,
      // Reconnects on the sentinels' +switch-master: the demoted master keeps serving (and
      // accepting writes) until the sentinels reconfigure it, seconds later.
      failoverDetector: true,
      db: target.db,
      username: target.username,
      password: target.password,
      sentinelPassword: target.sentinelPassword,
      ...(target.tls ? { tls: {}, enableTLSForSentinelMode: true, sentinelTLS: {} } : {}),
    });
  }
  const options: ClusterOptions = {
    // Every read from the master that took the write: no replica lag in counters or queues.
    scaleReads: 'master',
    ...common,
    enableReadyCheck: role === 'shared',
    // Seed hostnames are kept as given, so that TLS checks the certificate against them.
    dnsLookup: (address, callback) => callback(null, address),
    redisOptions: {
      ...CONNECTION[role],
      username: target.username,
      password: target.password,
      ...(target.tls ? { tls: {} } : {}),
    },
  };
  return new Cluster(target.nodes, options);
}

/**
 * Closes a client: QUIT, or a plain disconnect when that fails (the server is gone). A
 * Sentinel-backed client is disconnected: QUIT would leave its subscriptions on the sentinels
 * open, reconnecting.
 */
export async function closeRedis(redis: RedisClient): Promise<void> {
  if (!(redis instanceof Cluster) && redis.options.sentinels) {
    redis.disconnect();
    return;
  }
  await redis.quit().catch(() => redis.disconnect());
}

/**
 * PING; on a cluster, every master that serves slots must answer (one down leaves its slots
 * unusable, and ioredis drops its connection from the client's list, so the slot map counts them).
 */
export async function pingRedis(redis: RedisClient): Promise<void> {
  if (!(redis instanceof Cluster)) {
    await redis.ping();
    return;
  }
  const ranges = await redis.cluster('SLOTS');
  const masters = new Set(ranges.map(([, , [host, port]]) => `${host}:${port}`));
  const connected = redis.nodes('master');
  if (connected.length < masters.size) throw new Error('a Redis Cluster master is unreachable');
  await Promise.all(connected.map((n) => n.ping()));
}

/**
 * The servers behind a client that hold data: the one server, or every master of a cluster (a
 * key-less command sent to a cluster client reaches one node only).
 */
export function redisMasters(redis: RedisClient): Redis[] {
  return redis instanceof Cluster ? redis.nodes('master') : [redis];
}

/** The keys matching `pattern`, in batches: SCAN on every master. */
export async function* scanKeys(redis: RedisClient, pattern: string): AsyncGenerator<string[]> {
  for (const node of redisMasters(redis)) {
    for await (const keys of node.scanStream({ match: pattern, count: 1000 })) {
      if ((keys as string[]).length) yield keys as string[];
    }
  }
}

/**
 * The prefix of one Bull queue's keys. On a cluster every key of a queue must sit in one hash
 * slot (Bull's scripts and MULTIs span the queue's keys), and the queues are spread over slots:
 * `{<BULL_PREFIX>:<queue>}`. On one server, BULL_PREFIX as it is.
 */
export function bullQueuePrefix(
  config: { redisUrl: string; bullPrefix: string },
  queue: string,
): string {
  return isRedisCluster(config.redisUrl) ? `{${config.bullPrefix}:${queue}}` : config.bullPrefix;
}
