// REDIS_URL naming a Redis Sentinel group: the api and the worker on a master, its replica and a
// sentinel of their own. The limit scripts run, a send is delivered, and after a failover the
// clients find the new master through the sentinel and requests answer again.
import { INestApplication } from '@nestjs/common';
import { TestingModule } from '@nestjs/testing';
import request from 'supertest';
import {
  APP_CONFIG,
  AppConfig,
  bullQueuePrefix,
  isRedisCluster,
  QUEUES,
  REDIS,
  RedisClient,
} from '@app/domain';
import { queueKeyCount } from '../support/redis';
import { startRedisSentinel, RedisSentinel } from '../support/redis-sentinel';
import { createKey, Session } from '../support/session';
import { holdsFor, waitFor } from '../support/wait-for';
import { SmtpSink } from '../sending/support/smtp-sink';
import {
  basicEmail,
  startDeliveryStack,
  stopDeliveryStack,
  waitForMessage,
} from '../sending/support/sending';

describe('Redis Sentinel', () => {
  let group: RedisSentinel;
  let sink: SmtpSink;
  let app: INestApplication;
  let worker: TestingModule;
  let s: Session;
  let config: AppConfig;
  let redis: RedisClient;

  beforeAll(async () => {
    group = await startRedisSentinel();
    process.env.REDIS_URL = group.url;
    ({ sink, app, worker, s } = await startDeliveryStack());
    config = app.get<AppConfig>(APP_CONFIG);
    redis = app.get<RedisClient>(REDIS);
  });
  afterAll(async () => {
    if (app) await stopDeliveryStack({ sink, app, worker });
    await group?.stop();
  });

  /** The port of the server the shared connection is on. */
  const connectedPort = async () => Number(/tcp_port:(\d+)/.exec(await redis.info('server'))![1]);

  it('connects to the master the sentinel names, with the one-server queue prefix', async () => {
    expect(await connectedPort()).toBe(await group.masterPort());
    expect(isRedisCluster(config.redisUrl)).toBe(false);
    expect(Object.values(QUEUES).map((q) => bullQueuePrefix(config, q))).toEqual(
      Object.values(QUEUES).map(() => config.bullPrefix),
    );
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

  it('answers the readiness probe ok', async () => {
    const res = await request(app.getHttpServer()).get('/health').expect(200);
    expect(res.body.data).toEqual({ status: 'ok', database: 'up', redis: 'up' });
  });

  it('delivers a send through the queue', async () => {
    const res = await s.http.post('/api/v1/send', basicEmail({ to: 'a@example.test' })).expect(202);
    await waitForMessage(s.http, res.body.data.jobId, (m) => m.status === 'delivered');
    expect(sink.messages.some((m) => m.to.includes('a@example.test'))).toBe(true);
    expect(await queueKeyCount()).toBeGreaterThan(0);
  });

  it('follows a failover: requests answer again on the new master, sends are delivered', async () => {
    const { value } = await createKey(app, s.org.id);
    const get = () =>
      request(app.getHttpServer())
        .get('/api/v1/user/organization')
        .set('X-API-Key', value)
        .timeout(15_000);
    await get().expect(200);
    const before = await group.masterPort();
    await group.failover();
    // Meanwhile a request is served or answered 503 with Retry-After, nothing else.
    const others: { status: number; retryAfter?: string }[] = [];
    const served = async () => {
      const res = await get();
      if (res.status !== 200) {
        others.push({ status: res.status, retryAfter: res.headers['retry-after'] });
      }
      return res.status === 200;
    };
    await waitFor(
      async () => (await served()) && (await connectedPort()) === (await group.masterPort()),
      { what: 'the api answering from the new master', timeoutMs: 5_000, everyMs: 100 },
    );
    const after = await group.masterPort();
    expect(after).not.toBe(before);
    expect(others.filter((o) => o.status !== 503 || o.retryAfter !== '5')).toEqual([]);
    // And stays there while the sentinel demotes the former master.
    await holdsFor(async () => (await get()).status === 200 && (await connectedPort()) === after, {
      what: 'the api answering from the new master',
      forMs: 2_000,
      everyMs: 250,
    });
    const res = await s.http.post('/api/v1/send', basicEmail({ to: 'b@example.test' })).expect(202);
    await waitForMessage(s.http, res.body.data.jobId, (m) => m.status === 'delivered');
    expect(sink.messages.some((m) => m.to.includes('b@example.test'))).toBe(true);
  });
});
