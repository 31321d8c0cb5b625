// Idempotency-Key on POST /api/v1/send (§13). The same request twice, one
// after the other or at once, is one message and one limit unit, with identical 202 bodies (the
// repeats marked `Idempotent-Replayed: true`); another body under the key is a 409; a repeat
// while the first is still in flight waits for its answer, and is a 409 when none comes; the keys
// live in PostgreSQL, so a Redis flush changes nothing; without the header nothing is deduplicated.
import { INestApplication } from '@nestjs/common';
import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { IdempotencySweeper, requestFingerprint, SendingLimiter } from '@app/domain';
import { IdempotencyRepository } from '@app/domain/idempotency/idempotency.repository';
import { basicEmail, sendingEnv } from '../sending/support/sending';
import { createTestApp } from '../support/app';
import { createSession, NIL_UUID, Session } from '../support/session';
import { waitFor } from '../support/wait-for';

describe('Idempotency-Key on the send API', () => {
  let app: INestApplication;
  let s: Session;
  let ds: DataSource;

  beforeAll(async () => {
    sendingEnv();
    app = await createTestApp();
    s = await createSession(app, { plan: 'pro' });
    ds = app.get(DataSource);
  });
  afterAll(async () => {
    await app.close();
  });

  const send = (key: string | undefined, body: object = basicEmail(), session = s) => {
    const req = session.http.post('/api/v1/send', body);
    return key === undefined ? req : req.set('Idempotency-Key', key);
  };
  const messages = async (orgId = s.org.id): Promise<number> =>
    (
      await ds.query(`SELECT count(*)::int AS n FROM messages WHERE organization_id = $1`, [orgId])
    )[0].n;
  /** Recipients counted against the organization's month so far. */
  const used = async (): Promise<number> =>
    (await app.get(SendingLimiter).remaining(s.org.id)).perMonth.used;

  it('answers a repeat with the stored 202, without a new message or a limit unit', async () => {
    const key = randomUUID();
    const [m0, u0] = [await messages(), await used()];
    const first = await send(key).expect(202);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await send(key).expect(202);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.text).toBe(first.text);
    expect(first.body.data.jobId).toMatch(/^job_/);
    expect(await messages()).toBe(m0 + 1);
    expect(await used()).toBe(u0 + 1);
    // The same body with its keys in another order is the same request.
    const { from, to, subject, text } = basicEmail() as Record<string, string>;
    const reordered = await send(key, { text, subject, to, from }).expect(202);
    expect(reordered.text).toBe(first.text);
  });

  it('answers concurrent repeats with one message and identical bodies', async () => {
    const key = randomUUID();
    const [m0, u0] = [await messages(), await used()];
    const all = await Promise.all(Array.from({ length: 6 }, () => send(key)));
    for (const r of all) expect(r.status).toBe(202);
    expect(new Set(all.map((r) => r.text)).size).toBe(1);
    expect(all.filter((r) => r.headers['idempotent-replayed'] === 'true')).toHaveLength(5);
    expect(await messages()).toBe(m0 + 1);
    expect(await used()).toBe(u0 + 1);
  });

  it('refuses another body under the same key with 409', async () => {
    const key = randomUUID();
    await send(key).expect(202);
    const m0 = await messages();
    const other = await send(key, basicEmail({ subject: 'Something else' })).expect(409);
    expect(other.body).toEqual({
      success: false,
      message: 'Idempotency-Key was already used with a different request body',
      code: 'E_BUSINESS_RULE_VIOLATION',
    });
    expect(await messages()).toBe(m0);
  });

  /** The first request holds the key and has not answered (as if it were still running). */
  const holdInFlight = (key: string) =>
    ds.query(
      `INSERT INTO idempotency_keys (organization_id, key, request_hash, claim_id, locked_until, created_at)
       VALUES ($1, $2, $3, $4, now() + interval '1 minute', now())`,
      [s.org.id, key, requestFingerprint(basicEmail()), randomUUID()],
    );
  /** How many times the service has read the stored key so far. */
  const readsOf = (key: string) => {
    const find = jest.spyOn(app.get(IdempotencyRepository), 'find');
    return () => find.mock.calls.filter((c) => c[1] === key).length;
  };
  afterEach(() => jest.restoreAllMocks());

  it('refuses a repeat while the first request is still in flight, after waiting for its answer', async () => {
    const key = randomUUID();
    await holdInFlight(key);
    const reads = readsOf(key);
    const m0 = await messages();
    const res = await send(key).expect(409);
    expect(res.body.message).toBe('A request with this Idempotency-Key is still in progress');
    // It looked for the first answer again and again before refusing, not once.
    expect(reads()).toBeGreaterThan(1);
    expect(await messages()).toBe(m0);
  });

  it("answers a repeat that waits with the first request's response once it is stored", async () => {
    const key = randomUUID();
    await holdInFlight(key);
    const reads = readsOf(key);
    const m0 = await messages();
    const repeat = send(key).then((r) => r);
    // The repeat found the key held and is waiting: now the first request answers.
    await waitFor(() => reads() >= 1, { what: 'the repeat to read the held key' });
    const first = {
      jobId: 'job_01J00000000000000000000000',
      messageId: '<01J00000000000000000000000@example.test>',
      recipients: ['someone@example.test'],
      status: 'queued',
    };
    await ds.query(
      `UPDATE idempotency_keys SET response_body = $3::json, locked_until = NULL
        WHERE organization_id = $1 AND key = $2`,
      [s.org.id, key, JSON.stringify(first)],
    );
    const res = await repeat;
    expect(res.status).toBe(202);
    expect(res.headers['idempotent-replayed']).toBe('true');
    expect(res.body.data).toEqual(first);
    expect(await messages()).toBe(m0);
  });

  it('still replays after Redis was flushed', async () => {
    const key = randomUUID();
    const first = await send(key).expect(202);
    const redis = new Redis(process.env.REDIS_URL!);
    try {
      await redis.flushdb();
    } finally {
      redis.disconnect();
    }
    const m0 = await messages();
    const again = await send(key).expect(202);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.text).toBe(first.text);
    expect(await messages()).toBe(m0);
  });

  it('deduplicates nothing without the header', async () => {
    const m0 = await messages();
    const a = await send(undefined).expect(202);
    const b = await send(undefined).expect(202);
    expect(a.body.data.jobId).not.toBe(b.body.data.jobId);
    expect(b.headers['idempotent-replayed']).toBeUndefined();
    expect(await messages()).toBe(m0 + 2);
  });

  it('keeps nothing of a request that failed: a retry under the key runs anew', async () => {
    const key = randomUUID();
    const missing = await send(key, basicEmail({ contactId: NIL_UUID })).expect(404);
    expect(missing.body.code).toBe('E_ROW_NOT_FOUND');
    const fixed = await send(key).expect(202);
    expect(fixed.headers['idempotent-replayed']).toBeUndefined();
  });

  it('scopes keys to the organization, checks their form, and forgets them after 24 hours', async () => {
    const key = randomUUID();
    const mine = await send(key).expect(202);
    const other = await createSession(app, { plan: 'pro' });
    const theirs = await send(key, basicEmail(), other).expect(202);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect(theirs.body.data.jobId).not.toBe(mine.body.data.jobId);

    const bad = await send('k'.repeat(256)).expect(422);
    expect(bad.body.errors).toEqual([
      { field: 'Idempotency-Key', rule: 'type', message: expect.any(String) },
    ]);

    await ds.query(
      `UPDATE idempotency_keys SET created_at = now() - interval '25 hours'
        WHERE organization_id = $1 AND key = $2`,
      [s.org.id, key],
    );
    const later = await send(key).expect(202);
    expect(later.headers['idempotent-replayed']).toBeUndefined();
    expect(later.body.data.jobId).not.toBe(mine.body.data.jobId);
    await ds.query(
      `UPDATE idempotency_keys SET created_at = now() - interval '25 hours'
        WHERE organization_id = $1 AND key = $2`,
      [s.org.id, key],
    );
    expect(await app.get(IdempotencySweeper).purgeExpired()).toBeGreaterThanOrEqual(1);
    const left = await ds.query(
      `SELECT 1 FROM idempotency_keys WHERE organization_id = $1 AND key = $2`,
      [s.org.id, key],
    );
    expect(left).toEqual([]);
  });
});
