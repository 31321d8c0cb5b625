// The delivery bookkeeping of concurrent deliveries is group-committed (MicroBatcher): claims of
// many messages share one UPDATE, their run records one transaction. Each caller must get back its own
// message, and each record must land on its own message: attempts, recipient states, status,
// next attempt (the deferral schedule) and dispatch sequence (the follow-up job's id).
import { INestApplication } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AttemptRecord, ClaimedMessage, MessageService, RunRecord, SendService } from '@app/domain';
import { createTestApp } from '../support/app';
import { createSession, Session } from '../support/session';
import { basicEmail, sendingEnv } from './support/sending';

/** A worker's lease on a message it delivers (DELIVERY_LEASE_MS's default). */
const LEASE_MS = 300_000;

describe('MessageService: batched claims and run records', () => {
  let app: INestApplication;
  let s: Session;
  let ds: DataSource;
  let repo: MessageService;

  beforeAll(async () => {
    sendingEnv();
    app = await createTestApp();
    s = await createSession(app, { plan: 'pro' });
    ds = app.get(DataSource);
    repo = app.get(MessageService);
  });
  afterAll(async () => {
    await app.close();
  });

  /** Sends one message per recipient list; returns the message row ids in the same order. */
  async function messages(recipients: string[][]): Promise<string[]> {
    const ids: string[] = [];
    for (const to of recipients) {
      const r = await app.get(SendService).send(s.org.id, basicEmail({ to }) as never);
      const [{ id }] = await ds.query(`SELECT id FROM messages WHERE job_id = $1`, [r.jobId]);
      ids.push(id);
    }
    return ids;
  }

  /**
   * Counts the units of work sent to PostgreSQL while `fn` runs: each statement outside a
   * transaction and each transaction takes a query runner of its own.
   */
  async function statements<T>(fn: () => Promise<T>): Promise<{ out: T; count: number }> {
    const spy = jest.spyOn(ds, 'createQueryRunner');
    try {
      const out = await fn();
      return { out, count: spy.mock.calls.length };
    } finally {
      spy.mockRestore();
    }
  }

  const attempt = (
    idx: number,
    status: AttemptRecord['status'],
    code: number | null,
    at: Date,
  ): AttemptRecord => ({
    recipientIdx: idx,
    status,
    smtpCode: code,
    smtpMessage: code ? `${code} reply for ${status}` : 'ECONNREFUSED: connect failed',
    mxHost: code ? '127.0.0.1' : null,
    outboundIp: '127.0.0.1',
    retryCount: 0,
    attemptedAt: at,
  });

  it('gives each concurrent claimer its own message, once, in one statement', async () => {
    const ids = await messages([
      ['c0@example.test'],
      ['c1@example.test', 'c1b@example.test'],
      ['c2@example.test'],
      ['c3@example.test'],
      ['c4@example.test'],
    ]);
    // ids[4] is already leased by another worker; ids[0] is claimed twice in the same batch.
    await ds.query(`UPDATE messages SET lease_until = now() + interval '5 minutes' WHERE id = $1`, [
      ids[4],
    ]);
    const now = new Date();
    const requested = [ids[0], ids[1], ids[2], ids[0], ids[3], ids[4]];
    const { out: claimed, count } = await statements(() =>
      Promise.all(requested.map((id) => repo.claim(s.org.id, id, now, LEASE_MS))),
    );
    expect(count).toBeLessThan(requested.length);
    expect(claimed.map((c) => c?.id ?? null)).toEqual([ids[0], ids[1], ids[2], null, ids[3], null]);
    expect(claimed[0]!.recipients.map((r) => r.email)).toEqual(['c0@example.test']);
    expect(claimed[1]!.recipients.map((r) => r.email)).toEqual([
      'c1@example.test',
      'c1b@example.test',
    ]);
    expect(claimed[2]!.recipients.map((r) => r.email)).toEqual(['c2@example.test']);
    expect(claimed[4]!.recipients.map((r) => r.email)).toEqual(['c3@example.test']);
    for (const c of claimed.filter(Boolean)) expect(c!.organizationId).toBe(s.org.id);
    const leases: { id: string; leased: boolean }[] = await ds.query(
      `SELECT id, lease_until > now() AS leased FROM messages WHERE id = ANY($1::uuid[])`,
      [ids],
    );
    expect(leases.every((l) => l.leased)).toBe(true);
    // Held: nobody else gets them until the runs are recorded.
    expect(await repo.claim(s.org.id, ids[1], new Date(), LEASE_MS)).toBeNull();
  });

  it('a message that cannot be read fails alone: the others of its batch are still delivered', async () => {
    const ids = await messages([['p0@example.test'], ['p1@example.test'], ['p2@example.test']]);
    // Content this worker cannot decrypt (e.g. written under a key it does not have).
    await ds.query(`UPDATE messages SET content = 'not-a-ciphertext' WHERE id = $1`, [ids[1]]);
    const now = new Date();
    const { out: settled, count } = await statements(() =>
      Promise.allSettled(ids.map((id) => repo.claim(s.org.id, id, now, LEASE_MS))),
    );
    expect(count).toBeLessThan(ids.length);
    expect(settled.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const ok = settled as PromiseFulfilledResult<ClaimedMessage | null>[];
    expect(ok[0].value?.id).toBe(ids[0]);
    expect(ok[2].value?.id).toBe(ids[2]);
    expect(ok[2].value?.recipients.map((r) => r.email)).toEqual(['p2@example.test']);
  });

  it('records each run of a batch on its own message: attempts, states, status, next attempt, sequence', async () => {
    const ids = await messages([
      ['r0@example.test'],
      ['r1@example.test'],
      ['r2@example.test'],
      ['r3@example.test', 'r3b@example.test'],
    ]);
    // A message that has been dispatched before: its follow-up sequence is its own.
    await ds.query(`UPDATE messages SET dispatch_seq = 5 WHERE id = $1`, [ids[1]]);
    const now = new Date();
    const claimed = (await Promise.all(
      ids.map((id) => repo.claim(s.org.id, id, now, LEASE_MS)),
    )) as ClaimedMessage[];
    expect(claimed.map((c) => c.id)).toEqual(ids);
    const retryAt = new Date(now.getTime() + 120_000);
    const partialRetryAt = new Date(now.getTime() + 60_000);
    const state = (c: ClaimedMessage, i: number, status: string, next: Date | null) => ({
      ...c.recipients[i],
      status: status as never,
      retryCount: 1,
      nextAttemptAt: next,
      firstAttemptAt: now,
    });
    const runs: Omit<RunRecord, 'bounces' | 'at'>[] = [
      {
        message: claimed[0],
        attempts: [attempt(0, 'delivered', 250, now)],
        recipients: [state(claimed[0], 0, 'delivered', null)],
        outcome: { status: 'delivered', nextAttemptAt: null, completedAt: now },
      },
      {
        message: claimed[1],
        attempts: [attempt(0, 'deferred', null, now)],
        recipients: [state(claimed[1], 0, 'deferred', retryAt)],
        outcome: { status: 'deferred', nextAttemptAt: retryAt, completedAt: null },
      },
      {
        message: claimed[2],
        attempts: [attempt(0, 'bounced', 550, now)],
        recipients: [state(claimed[2], 0, 'bounced', null)],
        outcome: { status: 'bounced', nextAttemptAt: null, completedAt: now },
      },
      {
        message: claimed[3],
        attempts: [attempt(0, 'delivered', 250, now), attempt(1, 'deferred', 451, now)],
        recipients: [
          state(claimed[3], 0, 'delivered', null),
          state(claimed[3], 1, 'deferred', partialRetryAt),
        ],
        outcome: { status: 'deferred', nextAttemptAt: partialRetryAt, completedAt: null },
      },
    ];
    const { out: seqs, count } = await statements(() =>
      Promise.all(runs.map((r) => repo.record({ ...r, bounces: [], at: now }))),
    );
    expect(count).toBeLessThan(runs.length);
    expect(seqs).toEqual([1, 6, 1, 1]);

    const rows: {
      id: string;
      status: string;
      next_attempt_at: Date | null;
      completed: boolean;
      leased: boolean;
    }[] = await ds.query(
      `SELECT id, status, next_attempt_at, completed_at IS NOT NULL AS completed,
              lease_until IS NOT NULL AS leased
         FROM messages WHERE id = ANY($1::uuid[])`,
      [ids],
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect(ids.map((id) => byId.get(id)!.status)).toEqual([
      'delivered',
      'deferred',
      'bounced',
      'deferred',
    ]);
    expect(ids.map((id) => byId.get(id)!.next_attempt_at?.getTime() ?? null)).toEqual([
      null,
      retryAt.getTime(),
      null,
      partialRetryAt.getTime(),
    ]);
    expect(ids.map((id) => byId.get(id)!.completed)).toEqual([true, false, true, false]);
    expect(rows.every((r) => !r.leased)).toBe(true);

    const attempts: { message_id: string; recipient_idx: number; status: string; code: number }[] =
      await ds.query(
        `SELECT message_id, recipient_idx, status, smtp_code AS code FROM message_attempts
          WHERE message_id = ANY($1::uuid[]) ORDER BY recipient_idx`,
        [ids],
      );
    const of = (id: string) =>
      attempts.filter((a) => a.message_id === id).map((a) => [a.recipient_idx, a.status, a.code]);
    expect(of(ids[0])).toEqual([[0, 'delivered', 250]]);
    expect(of(ids[1])).toEqual([[0, 'deferred', null]]);
    expect(of(ids[2])).toEqual([[0, 'bounced', 550]]);
    expect(of(ids[3])).toEqual([
      [0, 'delivered', 250],
      [1, 'deferred', 451],
    ]);

    const recipients: {
      message_id: string;
      idx: number;
      status: string;
      retry_count: number;
      next_attempt_at: Date | null;
    }[] = await ds.query(
      `SELECT message_id, idx, status, retry_count, next_attempt_at FROM message_recipients
        WHERE message_id = ANY($1::uuid[]) ORDER BY idx`,
      [ids],
    );
    const rec = (id: string) =>
      recipients
        .filter((r) => r.message_id === id)
        .map((r) => [r.idx, r.status, r.retry_count, r.next_attempt_at?.getTime() ?? null]);
    expect(rec(ids[0])).toEqual([[0, 'delivered', 1, null]]);
    expect(rec(ids[1])).toEqual([[0, 'deferred', 1, retryAt.getTime()]]);
    expect(rec(ids[2])).toEqual([[0, 'bounced', 1, null]]);
    expect(rec(ids[3])).toEqual([
      [0, 'delivered', 1, null],
      [1, 'deferred', 1, partialRetryAt.getTime()],
    ]);

    // The deferred ones are due again at their own time, and only then.
    expect(
      await repo.claim(s.org.id, ids[1], new Date(retryAt.getTime() - 1), LEASE_MS),
    ).toBeNull();
    expect((await repo.claim(s.org.id, ids[1], retryAt, LEASE_MS))?.id).toBe(ids[1]);
    expect((await repo.claim(s.org.id, ids[3], partialRetryAt, LEASE_MS))?.id).toBe(ids[3]);
    expect(await repo.claim(s.org.id, ids[0], retryAt, LEASE_MS)).toBeNull();
  });
});
