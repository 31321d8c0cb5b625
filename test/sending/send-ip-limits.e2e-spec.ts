// Acceptance 3: per-client-IP limits of the send API (spec Limits › Email send API, §8).
// Client addresses come from X-Forwarded-For (TRUST_PROXY=true), one fresh address per test.
import { INestApplication } from '@nestjs/common';
import { randomInt } from 'node:crypto';
import request from 'supertest';
import { createTestApp } from '../support/app';
import { createSession, Session } from '../support/session';
import { leastLeftMs } from '../support/windows';
import { basicEmail, sendingEnv } from './support/sending';

/** A documentation-range address no other test file uses. */
function freshIp(): string {
  return `198.51.${randomInt(0, 255)}.${randomInt(1, 254)}`;
}

/** A documentation-range IPv6 /64 (its prefix, to which an interface id is appended). */
function freshNetwork(): string {
  return `2001:db8:${randomInt(0, 0xffff).toString(16)}:${randomInt(0, 0xffff).toString(16)}`;
}

describe('Per-IP limits of the send API', () => {
  let app: INestApplication;
  let s: Session;

  beforeAll(async () => {
    sendingEnv({ TRUST_PROXY: 'true' });
    process.env.SEND_IP_ALLOWLIST = '203.0.113.0/24';
    app = await createTestApp();
    s = await createSession(app, { plan: 'enterprise' });
  });
  afterAll(async () => {
    await app.close();
  });

  const send = (ip: string, key: string | undefined, body: object = basicEmail()) => {
    const req = request(app.getHttpServer()).post('/api/v1/send').set('X-Forwarded-For', ip);
    if (key) req.set('X-API-Key', key);
    return req.send(body);
  };

  it('answers the 31st send in a minute from one IP with 429 and the spec headers', async () => {
    const ip = freshIp();
    for (let i = 1; i <= 30; i++) {
      const res = await send(ip, s.apiKey).expect(202);
      expect(res.headers['ratelimit-policy']).toBe('30;w=60');
      const m = /^limit=30, remaining=(\d+), reset=(\d+)$/.exec(res.headers['ratelimit']);
      expect(m).not.toBeNull();
      expect(Number(m![1])).toBe(30 - i);
      expect(Number(m![2])).toBeGreaterThan(0);
      expect(Number(m![2])).toBeLessThanOrEqual(60);
    }
    const res = await send(ip, s.apiKey).expect(429);
    expect(res.body).toEqual({
      success: false,
      message: 'Too many requests, please try again later.',
      code: 'E_TOO_MANY_REQUESTS',
      retryAfter: expect.any(Number),
    });
    expect(Number(res.headers['retry-after'])).toBe(res.body.retryAfter);
    expect(res.body.retryAfter).toBeGreaterThan(0);
    expect(res.body.retryAfter).toBeLessThanOrEqual(60);
    expect(res.headers['ratelimit-policy']).toBe('30;w=60');
    expect(res.headers['ratelimit']).toMatch(/^limit=30, remaining=0, reset=\d+$/);

    // The limit is per IP: another client is unaffected.
    const other = await send(freshIp(), s.apiKey).expect(202);
    expect(other.headers['ratelimit']).toMatch(/^limit=30, remaining=29, reset=60$/);
  });

  it('sends the headers on every response of the send API, errors included', async () => {
    const ip = freshIp();
    const unauth = await send(ip, undefined).expect(401);
    expect(unauth.headers['ratelimit-policy']).toBe('30;w=60');
    const invalid = await send(ip, s.apiKey, { from: 'x' }).expect(422);
    expect(invalid.headers['ratelimit']).toMatch(/^limit=30, remaining=28, reset=\d+$/);
  });

  it('answers the 21st failed authentication within 15 minutes with 429 until the window ends', async () => {
    const ip = freshIp();
    const opened = Date.now();
    for (let i = 1; i <= 20; i++) {
      const res = await send(ip, `bk_live_${'x'.repeat(40)}`).expect(401);
      expect(res.body.code).toBe('E_UNAUTHORIZED_ACCESS');
    }
    const res = await send(ip, `bk_live_${'y'.repeat(40)}`).expect(429);
    expect(res.body).toEqual({
      success: false,
      message: 'Too many failed attempts, please try again later',
      code: 'E_TOO_MANY_REQUESTS',
      retryAfter: expect.any(Number),
    });
    // The window started at the first failure: at most 15 minutes remain, and no less than what is
    // left of 15 minutes since then.
    expect(res.body.retryAfter).toBeLessThanOrEqual(900);
    expect(res.body.retryAfter * 1000).toBeGreaterThanOrEqual(leastLeftMs(opened, 900_000));
    expect(res.headers['retry-after']).toBe(String(res.body.retryAfter));

    // Until the window ends the IP is refused, even with a valid key.
    const valid = await send(ip, s.apiKey).expect(429);
    expect(valid.body.message).toBe('Too many failed attempts, please try again later');

    // Another IP, and the same key from it, are fine.
    await send(freshIp(), s.apiKey).expect(202);
  });

  it('counts only failed authentications, not other errors', async () => {
    const ip = freshIp();
    for (let i = 0; i < 25; i++) {
      await send(ip, s.apiKey, { from: 'x' }).expect(422);
    }
    await send(ip, s.apiKey).expect(202);
  });

  it('counts every address of one IPv6 /64 against one budget, and another /64 apart', async () => {
    const net = freshNetwork();
    for (let i = 1; i <= 30; i++) {
      // Each request from another address of the same /64.
      const res = await send(`${net}::${i.toString(16)}`, s.apiKey, { from: 'x' }).expect(422);
      expect(res.headers['ratelimit']).toMatch(new RegExp(`^limit=30, remaining=${30 - i}, `));
    }
    const refused = await send(`${net}:ffff:ffff:ffff:ffff`, s.apiKey).expect(429);
    expect(refused.body.message).toBe('Too many requests, please try again later.');
    const other = await send(`${freshNetwork()}::1`, s.apiKey).expect(202);
    expect(other.headers['ratelimit']).toMatch(/^limit=30, remaining=29, /);
  });

  it('counts failed authentications of one IPv6 /64 together', async () => {
    const net = freshNetwork();
    for (let i = 1; i <= 20; i++) {
      await send(`${net}::${i.toString(16)}`, `bk_live_${'x'.repeat(40)}`).expect(401);
    }
    const res = await send(`${net}::abcd`, `bk_live_${'y'.repeat(40)}`).expect(429);
    expect(res.body.message).toBe('Too many failed attempts, please try again later');
    // Even a valid key from yet another address of that /64 waits for the window.
    await send(`${net}::beef`, s.apiKey).expect(429);
    await send(`${freshNetwork()}::1`, s.apiKey).expect(202);
  });

  it('counts an IPv4-mapped IPv6 address as its IPv4 address', async () => {
    const ip = freshIp();
    await send(ip, s.apiKey, { from: 'x' }).expect(422);
    const mapped = await send(`::ffff:${ip}`, s.apiKey, { from: 'x' }).expect(422);
    expect(mapped.headers['ratelimit']).toMatch(/^limit=30, remaining=28, /);
  });

  it('lifts the request limits for an allow-listed IP (SEND_IP_ALLOWLIST)', async () => {
    const ip = '203.0.113.9';
    for (let i = 0; i < 35; i++) {
      const res = await send(ip, s.apiKey).expect(202);
      expect(res.headers['ratelimit']).toBeUndefined();
    }
  });
});
