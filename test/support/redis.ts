// Redis as an e2e file sees it: its worker's database, shared in time with the files before it on
// that worker, and other runs' keys under their own prefixes.
import Redis from 'ioredis';

/**
 * Removes every key of this file's queues (its Bull prefix), as a Redis that lost its data would:
 * for tests of what survives that. The rest of the database is other files' and other runs'.
 * Returns how many keys there were.
 */
export async function flushQueues(): Promise<number> {
  const redis = new Redis(process.env.REDIS_URL!);
  try {
    let removed = 0;
    for await (const keys of redis.scanStream({
      match: `${process.env.BULL_PREFIX}:*`,
      count: 1000,
    }) as AsyncIterable<string[]>) {
      if (keys.length) removed += await redis.unlink(...keys);
    }
    return removed;
  } finally {
    redis.disconnect();
  }
}

/** How many keys this file's queues hold. */
export async function queueKeyCount(): Promise<number> {
  const redis = new Redis(process.env.REDIS_URL!);
  try {
    let n = 0;
    for await (const keys of redis.scanStream({
      match: `${process.env.BULL_PREFIX}:*`,
      count: 1000,
    }) as AsyncIterable<string[]>)
      n += keys.length;
    return n;
  } finally {
    redis.disconnect();
  }
}
