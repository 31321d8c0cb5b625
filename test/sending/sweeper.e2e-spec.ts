// Acceptance 5: a 202 survives Redis losing the job. The worker's sweeper re-queues committed
// messages whose job is gone. Redis loses the file's queues (every key of its Bull prefix).
import { getQueueToken } from '@nestjs/bull';
import { INestApplication } from '@nestjs/common';
import { TestingModule } from '@nestjs/testing';
import type { Queue } from 'bull';
import { DataSource } from 'typeorm';
import { EmailDispatcher, MessageMaintenanceService, QUEUES } from '@app/domain';
import { createTestApp } from '../support/app';
import { flushQueues, queueKeyCount } from '../support/redis';
import { createSession, Session } from '../support/session';
import { startSmtpSink, SmtpSink } from './support/smtp-sink';
import { basicEmail, sendingEnv, startWorker, waitForMessage } from './support/sending';

describe('Sweeper', () => {
  let sink: SmtpSink;
  let app: INestApplication;
  let worker: TestingModule | undefined;
  let s: Session;

  beforeAll(async () => {
    sink = await startSmtpSink();
    sendingEnv({
      SMTP_OUTBOUND_URL: sink.url,
      EMAIL_SWEEP_INTERVAL_MS: '200',
      EMAIL_SWEEP_GRACE_MS: '0',
    });
    app = await createTestApp();
    s = await createSession(app, { plan: 'pro' });
  });
  afterAll(async () => {
    await worker?.close();
    await app.close();
    await sink.close();
  });

  it('delivers a message whose queued job was flushed from Redis', async () => {
    const res = await s.http
      .post('/api/v1/send', basicEmail({ to: 'survivor@example.test', subject: 'Still here' }))
      .expect(202);
    const { jobId } = res.body.data;
    const [{ id }] = await app
      .get(DataSource)
      .query(`SELECT id FROM messages WHERE job_id = $1`, [jobId]);
    const queue = app.get<Queue>(getQueueToken(QUEUES.email));
    expect(await queue.getJob(`${id}:0`)).not.toBeNull();
    // A live job is left alone: same job, same dispatch sequence.
    await app.get(MessageMaintenanceService).sweep(0);
    expect(await queue.getJob(`${id}:0`)).not.toBeNull();
    const [{ dispatch_seq }] = await app
      .get(DataSource)
      .query(`SELECT dispatch_seq FROM messages WHERE id = $1`, [id]);
    expect(dispatch_seq).toBe(0);

    expect(await flushQueues()).toBeGreaterThan(0);
    expect(await queueKeyCount()).toBe(0);
    expect(await queue.getJob(`${id}:0`)).toBeNull();

    worker = await startWorker();
    const log = await waitForMessage(s.http, jobId, (m) => m.status === 'delivered');
    expect(log.deliveryAttempts).toEqual([
      expect.objectContaining({
        recipient: 'survivor@example.test',
        status: 'delivered',
        smtpCode: 250,
      }),
    ]);
    await sink.waitForMessages(1);
    const received = sink.messages.filter((m) => m.to.includes('survivor@example.test'));
    expect(received).toHaveLength(1);
    expect(received[0].parsed.subject).toBe('Still here');
  });
  it('re-queues every lost message of one sweep, however many live ones come before them', async () => {
    // Without a worker: every job stays queued (live) unless the test removes it.
    await worker?.close();
    worker = undefined;
    const ds = app.get(DataSource);
    const res = await s.http
      .post('/api/v1/send', basicEmail({ to: 'many@example.test', subject: 'Many' }))
      .expect(202);
    const [{ id: firstId }] = await ds.query(`SELECT id FROM messages WHERE job_id = $1`, [
      res.body.data.jobId,
    ]);
    // 650 due messages of this organization, one second apart (more than a sweep batch of 500),
    // cloned from the sent one; only the sweeper reads them.
    const cols: string[] = (
      await ds.query(
        `SELECT column_name FROM information_schema.columns
         WHERE table_schema = current_schema() AND table_name = 'messages' ORDER BY ordinal_position`,
      )
    ).map((r: { column_name: string }) => r.column_name);
    const value = (c: string) =>
      ({
        id: 'gen_random_uuid()',
        job_id: `job_id || '-' || g`,
        next_attempt_at: `now() - interval '2 hours' + make_interval(secs => g)`,
        lease_until: 'NULL',
        dispatch_seq: '0',
      })[c] ?? c;
    const clones: { id: string }[] = await ds.query(
      `INSERT INTO messages (${cols.join(', ')})
       SELECT ${cols.map(value).join(', ')} FROM messages, generate_series(1, 650) g
       WHERE id = $1 RETURNING id`,
      [firstId],
    );
    try {
      const ordered: { id: string }[] = await ds.query(
        `SELECT id FROM messages WHERE id = ANY($1) ORDER BY next_attempt_at`,
        [clones.map((c) => c.id)],
      );
      // Live jobs for all but ten, and those ten come after the first 500 due rows.
      const lost = new Set(ordered.slice(560, 570).map((r) => r.id));
      const dispatcher = app.get(EmailDispatcher);
      for (const { id } of ordered)
        if (!lost.has(id)) await dispatcher.enqueue(s.org.id, id, 0, 3_600_000);
      expect(await app.get(MessageMaintenanceService).sweep(0)).toBe(10);
      const bumped: { id: string }[] = await ds.query(
        `SELECT id FROM messages WHERE id = ANY($1) AND dispatch_seq = 1`,
        [ordered.map((r) => r.id)],
      );
      expect(new Set(bumped.map((r) => r.id))).toEqual(lost);
      const queue = app.get<Queue>(getQueueToken(QUEUES.email));
      for (const id of lost) expect(await queue.getJob(`${id}:1`)).not.toBeNull();
      // Nothing else is lost: a second sweep finds nothing.
      expect(await app.get(MessageMaintenanceService).sweep(0)).toBe(0);
    } finally {
      await ds.query(`DELETE FROM messages WHERE id = ANY($1)`, [clones.map((c) => c.id)]);
    }
  });
});
