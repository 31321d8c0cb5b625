// REDIS_URL naming a Redis Cluster (§18): the api and the worker on three masters of their own.
// Bull's keys of a queue share one slot (its hash-tagged prefix), the limit scripts run, a send is
// delivered, and a master that stops makes requests answer 503 until it is back.
import { INestApplication } from '@nestjs/common';
import { TestingModule } from '@nestjs/testing';
import Bull from 'bull';
import request from 'supertest';
import {
  AccountFailureLimiter,
  APP_CONFIG,
  AppConfig,
  bullQueuePrefix,
  BullConnections,
  QUEUES,
  REDIS,
  RedisClient,
  scanKeys,
  SendingLimiter,
} from '@app/domain';
import { queueKeyCount } from '../support/redis';
import { startRedisCluster, RedisCluster } from '../support/redis-cluster';
import { createKey, Session } from '../support/session';
import { waitFor } from '../support/wait-for';
import { SmtpSink } from '../sending/support/smtp-sink';
import {
  basicEmail,
  startDeliveryStack,
  stopDeliveryStack,
  waitForMessage,
} from '../sending/support/sending';

describe('Redis Cluster', () => {
  let cluster: RedisCluster;
  let sink: SmtpSink;
  let app: INestApplication;
  let worker: TestingModule;
  let s: Session;
  let config: AppConfig;
  let redis: RedisClient;

  beforeAll(async () => {
    cluster = await startRedisCluster();
    process.env.REDIS_URL = cluster.url;
    ({ sink, app, worker, s } = await startDeliveryStack());
    config = app.get<AppConfig>(APP_CONFIG);
    redis = app.get<RedisClient>(REDIS);
  });
  afterAll(async () => {
    if (app) await stopDeliveryStack({ sink, app, worker });
    await cluster?.stop();
  });

  const slotOf = async (key: string) => Number(await redis.cluster('KEYSLOT', key));

  it('gives every queue a hash-tagged prefix of its own, each in one slot', async () => {
    const prefixes = Object.values(QUEUES).map((q) => bullQueuePrefix(config, q));
    expect(prefixes).toEqual(Object.values(QUEUES).map((q) => `{${config.bullPrefix}:${q}}`));
    const slots = await Promise.all(prefixes.map((p) => slotOf(`${p}:x`)));
    expect(new Set(slots).size).toBeGreaterThan(1);
  });

  it('adds many jobs in one addBulk (one MULTI over the queue keys)', async () => {
    const connections = new BullConnections(config.redisUrl);
    const open = (prefix: string) =>
      new Bull('cluster-probe', { prefix, createClient: connections.create });
    const queue = open(bullQueuePrefix(config, 'cluster-probe'));
    // The same queue without the hash tag: its keys fall in different slots.
    const untagged = open(config.bullPrefix);
    try {
      const jobs = Array.from({ length: 500 }, (_, i) => ({ data: { i } }));
      expect(await queue.addBulk(jobs)).toHaveLength(500);
      expect(await queue.getWaitingCount()).toBe(500);
      await expect(untagged.addBulk(jobs.slice(0, 10))).rejects.toThrow(/slot/i);
    } finally {
      await queue.obliterate({ force: true });
      await Promise.all([queue.close(), untagged.close()]);
      await connections.close();
    }
  });

  it('runs the API key limit script: the 4th request of a 3-per-minute key is refused', async () => {
    const { value } = await createKey(app, s.org.id, { perMinute: 3 });
    const get = () =>
      request(app.getHttpServer()).get('/api/v1/user/organization').set('X-API-Key', value);
    for (let i = 2; i >= 0; i--) {
      expect((await get().expect(200)).headers['x-ratelimit-remaining']).toBe(String(i));
    }
    expect((await get()).status).toBe(429);
  });

  it("ends an account's login delays on every master (a scan of each, one DEL of its slot)", async () => {
    const limiter = app.get(AccountFailureLimiter);
    for (const ip of ['192.0.2.1', '192.0.2.2', '2001:db8::1']) {
      expect(await limiter.begin('acct-1', ip, false)).toMatchObject({ allowed: true });
    }
    const keys = async () => {
      const found: string[] = [];
      for await (const batch of scanKeys(redis, 'lf:{acct:acct-1}:*')) found.push(...batch);
      return found;
    };
    expect(await keys()).toHaveLength(4);
    await limiter.reset('acct-1');
    expect(await keys()).toEqual([]);
  });

  it('answers the readiness probe ok', async () => {
    const res = await request(app.getHttpServer()).get('/health').expect(200);
    expect(res.body.data).toEqual({ status: 'ok', database: 'up', redis: 'up' });
  });

  it('delivers a send through the queue (the organization limits consumed on the way)', async () => {
    const res = await s.http.post('/api/v1/send', basicEmail({ to: 'c@example.test' })).expect(202);
    await waitForMessage(s.http, res.body.data.jobId, (m) => m.status === 'delivered');
    expect(sink.messages.some((m) => m.to.includes('c@example.test'))).toBe(true);
    const { perDay } = await app.get(SendingLimiter).remaining(s.org.id);
    expect(perDay.used).toBe(1);
    // The queue's keys, found by a scan of every master.
    expect(await queueKeyCount()).toBeGreaterThan(0);
  });

  it('answers 503 with Retry-After while the master of a key limit is down, then recovers', async () => {
    const { key, value } = await createKey(app, s.org.id);
    const get = () =>
      request(app.getHttpServer())
        .get('/api/v1/user/organization')
        .set('X-API-Key', value)
        .timeout(15_000);
    await get().expect(200);
    // The master holding this key's rate-limit counters (hash tag {key:<id>}).
    const node = await cluster.masterOf(`{key:${key.id}}`);
    await cluster.stopNode(node);
    try {
      const res = await get();
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toBeDefined();
      expect(res.body.code).toBe('E_SERVICE_UNAVAILABLE');
      const health = await request(app.getHttpServer()).get('/health').expect(503);
      expect(health.body.data.redis).toBe('down');
    } finally {
      await cluster.startNode(node);
    }
    await waitFor(async () => (await get()).status === 200, {
      what: 'the api answering again',
      timeoutMs: 20_000,
      everyMs: 200,
    });
  });
});
