// Suppression and bounce bookkeeping still find a ContactEmail written under an older encryption
// key (ENCRYPTION_KEYS_OLD): its blind index differs from the one the message stored.
import { INestApplication } from '@nestjs/common';
import { TestingModule } from '@nestjs/testing';
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { FieldCipher, normaliseEmail } from '@app/domain';
import { createTestApp } from '../support/app';
import { createSession, Session } from '../support/session';
import { startSmtpSink, SmtpSink } from './support/smtp-sink';
import { basicEmail, sendingEnv, startWorker, waitForMessage } from './support/sending';

describe('Sending during an encryption key rotation', () => {
  const oldKey = randomBytes(32);
  const old = new FieldCipher(oldKey);
  let sink: SmtpSink;
  let app: INestApplication;
  let worker: TestingModule;
  let s: Session;

  beforeAll(async () => {
    sink = await startSmtpSink();
    sendingEnv({ SMTP_OUTBOUND_URL: sink.url, ENCRYPTION_KEYS_OLD: oldKey.toString('base64') });
    app = await createTestApp();
    worker = await startWorker();
    s = await createSession(app, { plan: 'pro' });
  });
  afterAll(async () => {
    await worker.close();
    await app.close();
    await sink.close();
  });

  async function oldContactEmail(email: string, status: string) {
    const ds = app.get(DataSource);
    const [c] = await ds.query(
      `INSERT INTO contacts (organization_id, status) VALUES ($1, 'active') RETURNING id`,
      [s.org.id],
    );
    await ds.query(
      `INSERT INTO contact_emails (organization_id, contact_id, email, email_hash, status)
       VALUES ($1, $2, $3, $4, $5)`,
      [s.org.id, c.id, old.encrypt(email), old.blindIndex(normaliseEmail(email)), status],
    );
  }

  it('suppresses an address whose ContactEmail carries the old blind index', async () => {
    await oldContactEmail('legacy@example.test', 'suppressed');
    const res = await s.http
      .post('/api/v1/send', basicEmail({ to: ['legacy@example.test', 'new@example.test'] }))
      .expect(202);
    const log = await waitForMessage(
      s.http,
      res.body.data.jobId,
      (m) => m.status === 'partially_delivered',
    );
    expect(Object.fromEntries(log.deliveryAttempts.map((a) => [a.recipient, a.status]))).toEqual({
      'legacy@example.test': 'suppressed',
      'new@example.test': 'delivered',
    });
    expect(sink.rcptSeen).not.toContain('legacy@example.test');
  });

  it('counts a bounce on a ContactEmail with the old blind index', async () => {
    await oldContactEmail('gone-legacy@example.test', 'verified');
    sink.onRcpt = (a) =>
      a === 'gone-legacy@example.test' ? { code: 550, message: '5.1.1 No such user' } : null;
    const res = await s.http
      .post('/api/v1/send', basicEmail({ to: 'gone-legacy@example.test' }))
      .expect(202);
    await waitForMessage(s.http, res.body.data.jobId, (m) => m.status === 'bounced');
    const [row] = await app
      .get(DataSource)
      .query(`SELECT status, bounce_count FROM contact_emails WHERE email_hash = $1`, [
        old.blindIndex('gone-legacy@example.test'),
      ]);
    expect(row).toEqual({ status: 'bounced', bounce_count: 1 });
  });
});
