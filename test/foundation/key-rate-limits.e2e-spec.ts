import { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { Clock } from '@app/domain';
import { createTestApp } from '../support/app';
import { ManualClock } from '../support/clock';
import { createKey, createSession, Session } from '../support/session';

const ME = '/api/v1/user/organization';

describe('Per-API-key rate limits (spec Limits › Platform API)', () => {
  let app: INestApplication;
  let s: Session;
  // Mid-minute on a fixed day, so nothing straddles a window boundary by accident.
  const clock = new ManualClock(new Date('2030-01-15T10:20:30Z'));

  beforeAll(async () => {
    app = await createTestApp({ override: (b) => b.overrideProvider(Clock).useValue(clock) });
    s = await createSession(app);
  });
  afterAll(() => app.close());

  const get = (key: string) => request(app.getHttpServer()).get(ME).set('X-API-Key', key);

  it('counts down Remaining and refuses the 6th request of a 5-per-minute key', async () => {
    const { value } = await createKey(app, s.org.id, { perMinute: 5 });
    for (let i = 4; i >= 0; i--) {
      const res = await get(value).expect(200);
      expect(res.headers['x-ratelimit-limit']).toBe('5');
      expect(res.headers['x-ratelimit-remaining']).toBe(String(i));
    }
    const refused = await get(value);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({
      success: false,
      message: 'Too many requests, please try again later.',
      code: 'E_TOO_MANY_REQUESTS',
      retryAfter: 30,
    });
    expect(refused.headers['retry-after']).toBe('30');
    expect(refused.headers['x-ratelimit-reset']).toBe('2030-01-15T10:21:00.000Z');
    expect(refused.headers['x-ratelimit-limit']).toBe('5');
    expect(refused.headers['x-ratelimit-remaining']).toBe('0');
    // A refused request consumes nothing: still refused, same figures.
    expect((await get(value)).status).toBe(429);
  });

  it('a second key of the same organization keeps its own budget', async () => {
    const first = await createKey(app, s.org.id, { perMinute: 2 });
    const second = await createKey(app, s.org.id, { perMinute: 2 });
    await get(first.value).expect(200);
    await get(first.value).expect(200);
    expect((await get(first.value)).status).toBe(429);
    const res = await get(second.value).expect(200);
    expect(res.headers['x-ratelimit-remaining']).toBe('1');
  });

  it('with both windows, the headers describe the one with fewer requests left', async () => {
    const dayTight = await createKey(app, s.org.id, { perMinute: 10, perDay: 3 });
    let res = await get(dayTight.value).expect(200);
    expect(res.headers['x-ratelimit-limit']).toBe('3');
    expect(res.headers['x-ratelimit-remaining']).toBe('2');

    const minuteTight = await createKey(app, s.org.id, { perMinute: 2, perDay: 100 });
    res = await get(minuteTight.value).expect(200);
    expect(res.headers['x-ratelimit-limit']).toBe('2');
    expect(res.headers['x-ratelimit-remaining']).toBe('1');
  });

  it('a per-day refusal waits for UTC midnight; a minute refusal resets with the next minute', async () => {
    const key = await createKey(app, s.org.id, { perMinute: 100, perDay: 2 });
    await get(key.value).expect(200);
    await get(key.value).expect(200);
    const refused = await get(key.value);
    expect(refused.status).toBe(429);
    expect(refused.headers['x-ratelimit-reset']).toBe('2030-01-16T00:00:00.000Z');
    expect(refused.headers['x-ratelimit-limit']).toBe('2');

    const minute = await createKey(app, s.org.id, { perMinute: 1 });
    await get(minute.value).expect(200);
    expect((await get(minute.value)).status).toBe(429);
    clock.advance(60_000);
    const after = await get(minute.value).expect(200);
    expect(after.headers['x-ratelimit-remaining']).toBe('0');
    expect((await get(key.value)).status).toBe(429);
    clock.set('2030-01-16T00:00:01Z');
    await get(key.value).expect(200);
  });

  it('public routes carry no key limit headers', async () => {
    const res = await request(app.getHttpServer()).get('/health').expect(200);
    expect(res.headers['x-ratelimit-limit']).toBeUndefined();
  });
});
