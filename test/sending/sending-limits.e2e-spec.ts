// Acceptance 2: organization sending limits (§8) — one atomic check-and-consume over five windows,
// asserted through the counters, with an injected clock for the UTC boundaries.
import { INestApplication } from '@nestjs/common';
import fc from 'fast-check';
import { DataSource } from 'typeorm';
import {
  Clock,
  OrganizationService,
  OrgId,
  PLAN_SENDING_LIMITS,
  REDIS,
  type RedisClient,
  SENDING_WINDOWS,
  SendingLimiter,
  SendingLimitExceededError,
  SendingWindow,
} from '@app/domain';
import { createTestApp } from '../support/app';
import { createSession } from '../support/session';
import { leastLeftMs } from '../support/windows';
import { basicEmail, sendingEnv } from './support/sending';

/** The TTL the limit key is written with: 32 days (Redis counts it on its own clock). */
const MONTH_TTL_MS = 32 * 86_400_000;

class TestClock extends Clock {
  t = Date.parse('2031-03-15T10:20:30.000Z');
  now(): Date {
    return new Date(this.t);
  }
  set(iso: string): void {
    this.t = Date.parse(iso);
  }
}

describe(SendingLimiter.name, () => {
  let app: INestApplication;
  let limiter: SendingLimiter;
  const clock = new TestClock();

  beforeAll(async () => {
    sendingEnv();
    app = await createTestApp({ override: (b) => b.overrideProvider(Clock).useValue(clock) });
    limiter = app.get(SendingLimiter);
  });
  afterAll(() => app.close());
  beforeEach(() => clock.set('2031-03-15T10:20:30.000Z'));

  /** A fresh organization with every window at 1,000 except the given overrides. */
  async function org(limits: Partial<Record<SendingWindow, number>>): Promise<OrgId> {
    const o = await app.get(OrganizationService).create({ name: 'limits test', plan: 'free' });
    const all = {
      perSecond: 1000,
      perMinute: 1000,
      perHour: 1000,
      perDay: 1000,
      perMonth: 1000,
      ...limits,
    };
    await app.get(OrganizationService).setLimits(o.id, all);
    return o.id;
  }

  const remainingOf = async (orgId: OrgId) =>
    Object.fromEntries(
      Object.entries(await limiter.remaining(orgId)).map(([w, b]) => [w, b.remaining]),
    );

  const refusal = async (p: Promise<unknown>): Promise<SendingLimitExceededError> => {
    const err = await p.then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(SendingLimitExceededError);
    return err as SendingLimitExceededError;
  };

  const cases: { window: SendingWindow; limit: number; retryAfter: number }[] = [
    // Requests leave the perSecond window 1.1 s after the 100 ms step they were made in.
    { window: 'perSecond', limit: 3, retryAfter: 2 },
    { window: 'perMinute', limit: 3, retryAfter: 30 },
    { window: 'perHour', limit: 3, retryAfter: 39 * 60 + 30 },
    { window: 'perDay', limit: 7, retryAfter: 13 * 3600 + 39 * 60 + 30 },
    {
      window: 'perMonth',
      limit: 7,
      retryAfter: Math.ceil(
        (Date.parse('2031-04-01T00:00:00Z') - Date.parse('2031-03-15T10:20:30Z')) / 1000,
      ),
    },
  ];

  for (const c of cases) {
    it(`refuses a request that would overflow ${c.window} and leaves every window unchanged`, async () => {
      const orgId = await org({ [c.window]: c.limit });
      // Three requests of two recipients: request windows at 3/3, recipient windows at 6/7.
      for (let i = 0; i < 3; i++) await limiter.consume(orgId, { requests: 1, recipients: 2 });
      const before = await remainingOf(orgId);
      for (const w of SENDING_WINDOWS) {
        if (w !== c.window) expect(before[w]).toBeGreaterThan(2);
        expect(before[w]).toBeLessThan(1000);
      }
      expect(before[c.window]).toBeLessThan(2);

      const err = await refusal(limiter.consume(orgId, { requests: 1, recipients: 2 }));
      expect(err.message).toBe(`Rate limit exceeded: ${c.window}`);
      expect(err.window).toBe(c.window);
      expect(err.retryAfter).toBe(c.retryAfter);
      expect(await remainingOf(orgId)).toEqual(before);
    });
  }

  it('names the first overflowing window in the order perSecond → perMonth', async () => {
    const orgId = await org({ perSecond: 1, perHour: 1, perDay: 1 });
    await limiter.consume(orgId, { requests: 1, recipients: 1 });
    const err = await refusal(limiter.consume(orgId, { requests: 1, recipients: 1 }));
    expect(err.message).toBe('Rate limit exceeded: perSecond');
    clock.t += 1100;
    const next = await refusal(limiter.consume(orgId, { requests: 1, recipients: 1 }));
    expect(next.message).toBe('Rate limit exceeded: perHour');
  });

  it('slides the perSecond window in 100 ms steps, never more than the limit in a second', async () => {
    const orgId = await org({ perSecond: 3 });
    const t0 = clock.t; // 10:20:30.000, the start of a 100 ms step
    await limiter.consume(orgId, { requests: 1, recipients: 1 });
    await limiter.consume(orgId, { requests: 1, recipients: 1 });
    clock.t = t0 + 650;
    await limiter.consume(orgId, { requests: 1, recipients: 1 });
    await refusal(limiter.consume(orgId, { requests: 1, recipients: 1 }));
    // Within a second of the first two, and up to the end of their 100 ms step + 1 s: still full.
    clock.t = t0 + 1099;
    const err = await refusal(limiter.consume(orgId, { requests: 1, recipients: 1 }));
    expect(err.window).toBe('perSecond');
    expect(err.retryAfter).toBe(1);
    clock.t = t0 + 1100; // the first two have left; the one at +650 still counts
    expect((await limiter.remaining(orgId)).perSecond).toMatchObject({ used: 1, remaining: 2 });
    await limiter.consume(orgId, { requests: 1, recipients: 1 });
    await limiter.consume(orgId, { requests: 1, recipients: 1 });
    await refusal(limiter.consume(orgId, { requests: 1, recipients: 1 }));
    clock.t = t0 + 1700; // the one at +650 has left too
    await limiter.consume(orgId, { requests: 1, recipients: 1 });
    expect((await limiter.remaining(orgId)).perSecond).toMatchObject({ used: 3, remaining: 0 });
  });

  it('never lets more than perSecond requests through in any one second (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 5 }),
        fc.array(fc.integer({ min: 0, max: 350 }), { minLength: 5, maxLength: 40 }),
        async (limit, gaps) => {
          const orgId = await org({ perSecond: limit });
          const accepted: number[] = [];
          let t = Date.parse('2031-05-05T05:05:05.000Z');
          for (const gap of gaps) {
            t += gap;
            clock.t = t;
            const ok = await limiter.consume(orgId, { requests: 1, recipients: 1 }).then(
              () => true,
              (e: unknown) => {
                if (!(e instanceof SendingLimitExceededError)) throw e;
                return false;
              },
            );
            // Liveness: nothing accepted in the last 1.1 s means room for this one.
            const recent = accepted.filter((a) => a > t - 1100).length;
            if (recent === 0) expect(ok).toBe(true);
            if (ok) accepted.push(t);
            // Safety: at most `limit` accepted within any window of one second.
            expect(accepted.filter((a) => a > t - 1000).length).toBeLessThanOrEqual(limit);
          }
        },
      ),
      { numRuns: 25 },
    );
  });

  it('consumes all or nothing under concurrency', async () => {
    const orgId = await org({ perMinute: 7 });
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, () => limiter.consume(orgId, { requests: 1, recipients: 3 })),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(7);
    const left = await limiter.remaining(orgId);
    expect(left.perMinute).toMatchObject({ used: 7, remaining: 0 });
    expect(left.perDay.used).toBe(21);
    expect(left.perMonth.used).toBe(21);
  });

  it('checks the requests of one burst in order, each against what the ones before it consumed', async () => {
    const a = await org({ perSecond: 3, perDay: 6 });
    const b = await org({ perSecond: 1 });
    // With the limits given, each call reaches the batch in the order it was made.
    const limits = { [a]: await limiter.limitsOf(a), [b]: await limiter.limitsOf(b) };
    const calls: [OrgId, number][] = [
      [a, 4], // 4 of 6 recipients
      [b, 1], // another organization: its own budget
      [a, 3], // 7 > 6: refused by perDay, consumes nothing
      [a, 2], // 6 of 6
      [b, 1], // perSecond 1 of b is spent
      [a, 1], // requests 3 of 3, but recipients 7 > 6: perDay
      [a, 0], // a request of no recipient: 3 of 3 per second
      [a, 0], // the fourth request in this second: perSecond
    ];
    const results = await Promise.allSettled(
      calls.map(([o, recipients]) =>
        limiter.consume(o, { requests: 1, recipients }, { limits: limits[o] }),
      ),
    );
    const outcome = results.map((r) =>
      r.status === 'fulfilled' ? 'ok' : (r.reason as SendingLimitExceededError).window,
    );
    expect(outcome).toEqual(['ok', 'ok', 'perDay', 'ok', 'perSecond', 'perDay', 'ok', 'perSecond']);
    // b's one request of this 100 ms step leaves the window 1.1 s from now.
    expect((results[4] as PromiseRejectedResult).reason).toMatchObject({ retryAfter: 2 });
    expect((await limiter.remaining(a)).perDay).toMatchObject({ used: 6, remaining: 0 });
    expect((await limiter.remaining(a)).perSecond).toMatchObject({ used: 3, remaining: 0 });
    expect((await limiter.remaining(b)).perSecond).toMatchObject({ used: 1, remaining: 0 });
  });

  it('resets the calendar windows at the UTC boundaries', async () => {
    const orgId = await org({ perMinute: 1, perHour: 2, perDay: 3, perMonth: 4 });
    clock.set('2031-01-31T23:59:59.000Z');
    await limiter.consume(orgId, { requests: 1, recipients: 1 });
    expect((await refusal(limiter.consume(orgId, { requests: 1, recipients: 1 }))).window).toBe(
      'perMinute',
    );
    clock.set('2031-01-31T23:59:59.999Z');
    expect((await refusal(limiter.consume(orgId, { requests: 1, recipients: 1 }))).retryAfter).toBe(
      1,
    );

    // Midnight UTC on the first of the month: minute, hour, day and month all start over.
    clock.set('2031-02-01T00:00:00.000Z');
    const fresh = await limiter.remaining(orgId);
    expect(fresh.perMinute.remaining).toBe(1);
    expect(fresh.perHour.remaining).toBe(2);
    expect(fresh.perDay.remaining).toBe(3);
    expect(fresh.perMonth.remaining).toBe(4);
    expect(fresh.perDay.resetsAt!.toISOString()).toBe('2031-02-02T00:00:00.000Z');
    expect(fresh.perMonth.resetsAt!.toISOString()).toBe('2031-03-01T00:00:00.000Z');
    await limiter.consume(orgId, { requests: 1, recipients: 3 });

    // Next minute: perMinute is back but the day's recipients are spent until midnight.
    clock.set('2031-02-01T00:01:00.000Z');
    const err = await refusal(limiter.consume(orgId, { requests: 1, recipients: 1 }));
    expect(err.window).toBe('perDay');
    expect(err.retryAfter).toBe(24 * 3600 - 60);
    clock.set('2031-02-02T00:00:00.000Z');
    await limiter.consume(orgId, { requests: 1, recipients: 1 });
    // The month has 4 recipients: 3 + 1 used, so the month refuses until March.
    clock.set('2031-02-03T00:00:00.000Z');
    const month = await refusal(limiter.consume(orgId, { requests: 1, recipients: 1 }));
    expect(month.window).toBe('perMonth');
    clock.set('2031-03-01T00:00:00.000Z');
    await limiter.consume(orgId, { requests: 1, recipients: 1 });
  });

  it('resets perMonth at every UTC month boundary and at no other day boundary (1999–2101)', async () => {
    // The script derives the month from the day number itself; check it against Date.UTC across
    // leap years, century years and 400-year years.
    const orgId = await org({ perMonth: 1, perDay: 1000 });
    for (const y of [1999, 2000, 2001, 2023, 2024, 2025, 2031, 2096, 2099, 2100, 2101]) {
      for (let mo = 0; mo < 12; mo++) {
        clock.t = Date.UTC(y, mo, 1) + 5;
        await limiter.consume(orgId, { requests: 1, recipients: 1 });
        // A later day of the same month (the last one) still counts this month's recipient.
        clock.t = Date.UTC(y, mo + 1, 1) - 1;
        const err = await refusal(limiter.consume(orgId, { requests: 1, recipients: 1 }));
        expect([y, mo, err.window]).toEqual([y, mo, 'perMonth']);
        expect((await limiter.remaining(orgId)).perMonth.used).toBe(1);
      }
    }
  });

  it('keeps the limit key alive for the month of its last write (TTL renewed once a day)', async () => {
    const orgId = await org({});
    const redis = app.get<RedisClient>(REDIS);
    const key = `sl:{org:${orgId}}`;
    clock.set('2031-03-15T10:20:30.000Z');
    let written = Date.now();
    await limiter.consume(orgId, { requests: 1, recipients: 1 });
    expect(await redis.pttl(key)).toBeGreaterThanOrEqual(leastLeftMs(written, MONTH_TTL_MS));
    // Later writes of the same day keep the TTL the day's first write set.
    await redis.pexpire(key, 1_000_000);
    clock.set('2031-03-15T23:59:59.000Z');
    await limiter.consume(orgId, { requests: 1, recipients: 1 });
    const kept = await redis.pttl(key);
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThanOrEqual(1_000_000);
    // The first write of the next day renews the 32 days.
    clock.set('2031-03-16T00:00:01.000Z');
    written = Date.now();
    await limiter.consume(orgId, { requests: 1, recipients: 1 });
    expect(await redis.pttl(key)).toBeGreaterThanOrEqual(leastLeftMs(written, MONTH_TTL_MS));
    expect(await redis.strlen(key)).toBe(144);
    expect((await limiter.remaining(orgId)).perMonth.used).toBe(3);
  });

  it('uses the plan defaults unless the organization overrides them', async () => {
    const o = await app.get(OrganizationService).create({ name: 'pro org', plan: 'pro' });
    expect(await limiter.limitsOf(o.id)).toEqual(PLAN_SENDING_LIMITS.pro);
    await app.get(OrganizationService).setLimits(o.id, { perDay: 42 });
    expect(await limiter.limitsOf(o.id)).toEqual({ ...PLAN_SENDING_LIMITS.pro, perDay: 42 });
  });

  it('refuses a send with 3 recipients against 2 left in perDay: nobody is sent, nothing consumed', async () => {
    const s = await createSession(app, { plan: 'pro' });
    await app.get(OrganizationService).setLimits(s.org.id, { perDay: 5 });
    await s.http
      .post(
        '/api/v1/send',
        basicEmail({ to: ['a@example.test', 'b@example.test', 'c@example.test'] }),
      )
      .expect(202);
    const before = await remainingOf(s.org.id);
    expect(before.perDay).toBe(2);

    const res = await s.http
      .post(
        '/api/v1/send',
        basicEmail({ to: ['d@example.test', 'e@example.test'], cc: 'f@example.test' }),
      )
      .expect(429);
    expect(res.body).toEqual({
      success: false,
      message: 'Rate limit exceeded: perDay',
      code: 'E_TOO_MANY_REQUESTS',
      retryAfter: 13 * 3600 + 39 * 60 + 30,
    });
    expect(res.headers['retry-after']).toBe(String(13 * 3600 + 39 * 60 + 30));
    expect(await remainingOf(s.org.id)).toEqual(before);
    const rows = await app.get(DataSource).query(
      `SELECT count(*)::int AS messages, (SELECT count(*)::int FROM message_recipients WHERE organization_id = $1) AS recipients
           FROM messages WHERE organization_id = $1`,
      [s.org.id],
    );
    expect(rows[0]).toEqual({ messages: 1, recipients: 3 });

    // Two recipients still fit.
    await s.http
      .post('/api/v1/send', basicEmail({ to: ['d@example.test', 'e@example.test'] }))
      .expect(202);
  });
});
