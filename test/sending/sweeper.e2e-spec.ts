// Acceptance 5: a 202 survives Redis losing the job. The worker's sweeper re-queues committed
// messages whose job is gone. This file FLUSHDBs its own Redis database (never FLUSHALL).
import { getQueueToken } from '@nestjs/bull';
import { INestApplication } from '@nestjs/common';
import { TestingModule } from '@nestjs/testing';
import type { Queue } from 'bull';
import Redis from 'ioredis';
import { DataSource } from 'typeorm';
import { MessageMaintenanceService, QUEUES } from '@app/domain';
import { createTestApp } from '../support/app';
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

    const redis = new Redis(process.env.REDIS_URL!);
    try {
      expect(await redis.dbsize()).toBeGreaterThan(0);
      await redis.flushdb();
      expect(await redis.dbsize()).toBe(0);
    } finally {
      redis.disconnect();
    }
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
});
