// Redis as an e2e file sees it: its worker's database (or a cluster of its own), shared in time
// with the files before it on that worker, and other runs' keys under their own prefixes.
import {
  bullQueuePrefix,
  closeRedis,
  loadConfig,
  openRedis,
  QUEUES,
  RedisClient,
  scanKeys,
} from '@app/domain';

/** Calls `each` with every batch of this file's queue keys (its Bull prefix), queue by queue. */
async function eachQueueBatch(each: (redis: RedisClient, keys: string[]) => Promise<void>) {
  const config = loadConfig();
  const redis = openRedis(config.redisUrl, 'shared');
  try {
    for (const queue of Object.values(QUEUES)) {
      // One queue's keys share a hash slot on a cluster, so a batch is one multi-key command.
      for await (const keys of scanKeys(redis, `${bullQueuePrefix(config, queue)}:${queue}:*`)) {
        await each(redis, keys);
      }
    }
  } finally {
    await closeRedis(redis);
  }
}

/**
 * Removes every key of this file's queues, as a Redis that lost its data would: for tests of what
 * survives that. The rest of the database is other files' and other runs'. Returns how many keys
 * there were.
 */
export async function flushQueues(): Promise<number> {
  let removed = 0;
  await eachQueueBatch(async (redis, keys) => {
    removed += await redis.unlink(...keys);
  });
  return removed;
}

/** How many keys this file's queues hold. */
export async function queueKeyCount(): Promise<number> {
  let n = 0;
  await eachQueueBatch(async (_redis, keys) => {
    n += keys.length;
  });
  return n;
}
