// Redis unreachable while the api runs (found by the resilience suite, test/resilience): the
// per-key limit and the sending limits cannot be read, so authenticated routes answer 503 with
// Retry-After, never 500. The app's Redis client points at a port nothing listens on.
import { INestApplication } from '@nestjs/common';
import { createServer } from 'node:net';
import { openRedis, REDIS, type RedisClient } from '@app/domain';
import { createTestApp } from '../support/app';
import { createSession, Session } from '../support/session';

function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

describe('Redis outage', () => {
  let app: INestApplication;
  let redis: RedisClient;
  let s: Session;

  beforeAll(async () => {
    redis = openRedis(`redis://127.0.0.1:${await closedPort()}`, 'shared');
    redis.on('error', () => undefined);
    app = await createTestApp({
      override: (b) => b.overrideProvider(REDIS).useValue(redis),
      logLevel: 'error', // the key-invalidation subscriber warns on every reconnection attempt
    });
    s = await createSession(app);
  });
  afterAll(async () => {
    await app.close();
    redis.disconnect();
  });

  it('answers an authenticated read 503 with Retry-After, not 500', async () => {
    const res = await s.http.get('/api/v1/user/contacts');
    expect(res.status).toBe(503);
    expect(res.body).toEqual({
      success: false,
      message: 'Service temporarily unavailable',
      code: 'E_SERVICE_UNAVAILABLE',
      retryAfter: 5,
    });
    expect(res.headers['retry-after']).toBe('5');
  });

  it('answers a send 503, not 500', async () => {
    const res = await s.http.post('/api/v1/send', {
      from: 'a@example.com',
      to: ['b@example.com'],
      subject: 'Hi',
      text: 'Hello',
    });
    expect(res.status).toBe(503);
    expect(res.body.code).toBe('E_SERVICE_UNAVAILABLE');
  });

  it('reports Redis down on the readiness probe', async () => {
    const res = await s.http.get('/health');
    expect(res.status).toBe(503);
    expect(res.body.data.redis).toBe('down');
  });
});
