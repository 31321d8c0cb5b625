// Acceptance 1: POST /api/v1/send through the real worker into a real SMTP sink on loopback.
import { INestApplication } from '@nestjs/common';
import { TestingModule } from '@nestjs/testing';
import { DataSource } from 'typeorm';
import { OrganizationService } from '@app/domain';
import { createSession, Session } from '../support/session';
import { startSmtpSink, SmtpSink } from './support/smtp-sink';
import {
  basicEmail,
  contactEmailState,
  insertContactEmail,
  startDeliveryStack,
  stopDeliveryStack,
  waitForMessage,
} from './support/sending';

describe('POST /api/v1/send → delivery', () => {
  let sink: SmtpSink;
  let app: INestApplication;
  let worker: TestingModule;
  let s: Session;

  beforeAll(async () => {
    ({ sink, app, worker, s } = await startDeliveryStack({ DELIVERY_RETRY_BASE_MS: '300' }));
  });
  afterAll(() => stopDeliveryStack({ sink, app, worker }));
  beforeEach(() => {
    sink.onRcpt = undefined;
  });

  it('delivers the message with its headers and body, and logs a delivered attempt per recipient', async () => {
    const attachment = Buffer.from('attached file body').toString('base64');
    const res = await s.http
      .post('/api/v1/send', {
        from: 'Alice Sender <alice@sender.test>',
        to: ['bob@example.test'],
        cc: 'Carol <carol@example.test>',
        bcc: ['dave@example.test'],
        replyTo: { email: 'replies@sender.test', name: 'Replies' },
        subject: 'Quarterly update',
        html: '<p>Hello <b>Bob</b></p>',
        text: 'Hello Bob',
        headers: { 'X-Campaign-Ref': 'spring-2025' },
        attachments: [{ filename: 'notes.txt', content: attachment, contentType: 'text/plain' }],
        tags: ['newsletter'],
      })
      .expect(202);
    expect(res.body).toEqual({
      success: true,
      message: 'Email queued for delivery',
      data: {
        jobId: expect.stringMatching(/^job_[0-9A-HJKMNP-TV-Z]{26}$/),
        messageId: expect.stringMatching(/^<[0-9A-HJKMNP-TV-Z]{26}@sender\.test>$/),
        recipients: ['bob@example.test', 'carol@example.test', 'dave@example.test'],
        status: 'queued',
      },
    });
    const { jobId, messageId } = res.body.data;

    // One SMTP transaction per recipient, each with its own VERP envelope sender (§13); the
    // sender's domain is not verified, so the return host is BOUNCE_DOMAIN (localhost here).
    const mails = await sink.waitForMessages(3);
    expect(mails.map((m) => m.to).sort()).toEqual([
      ['bob@example.test'],
      ['carol@example.test'],
      ['dave@example.test'],
    ]);
    for (const m of mails) {
      expect(m.from).toMatch(/^bounces\+[0-9a-f]{52}@bounces\.localhost$/);
      expect(m.raw).not.toMatch(/^bcc:/im);
      expect(m.raw).not.toContain('dave@example.test');
    }
    expect(new Set(mails.map((m) => m.from)).size).toBe(3);
    const mail = mails.find((m) => m.to[0] === 'bob@example.test')!;
    const p = mail.parsed;
    expect(p.messageId).toBe(messageId);
    expect(p.subject).toBe('Quarterly update');
    expect(p.from?.value).toEqual([{ address: 'alice@sender.test', name: 'Alice Sender' }]);
    expect(p.headers.get('to')).toMatchObject({ value: [{ address: 'bob@example.test' }] });
    expect(p.headers.get('cc')).toMatchObject({
      value: [{ address: 'carol@example.test', name: 'Carol' }],
    });
    expect(p.replyTo?.value).toEqual([{ address: 'replies@sender.test', name: 'Replies' }]);
    expect(p.headers.get('x-campaign-ref')).toBe('spring-2025');
    expect(mail.raw).not.toMatch(/^bcc:/im);
    expect(mail.raw).not.toContain('dave@example.test');
    expect(p.html).toContain('<p>Hello <b>Bob</b></p>');
    expect(p.text?.trim()).toBe('Hello Bob');
    expect(p.attachments).toHaveLength(1);
    expect(p.attachments[0].filename).toBe('notes.txt');
    expect(p.attachments[0].content.toString()).toBe('attached file body');

    const log = await waitForMessage(s.http, jobId, (m) => m.status === 'delivered');
    expect(log).toMatchObject({
      jobId,
      messageId,
      senderAddress: 'alice@sender.test',
      recipients: ['bob@example.test', 'carol@example.test', 'dave@example.test'],
      engagementEvents: [],
      retentionDays: 30,
    });
    expect(log.deliveryAttempts).toHaveLength(3);
    for (const a of log.deliveryAttempts) {
      expect(a).toEqual({
        recipient: expect.any(String),
        status: 'delivered',
        smtpCode: 250,
        smtpMessage: expect.stringMatching(/^250 /),
        mxHost: '127.0.0.1',
        outboundIp: '127.0.0.1',
        retryCount: 0,
        attemptedAt: expect.any(String),
      });
    }
    expect(log.deliveryAttempts.map((a) => a.recipient).sort()).toEqual(log.recipients);
  });

  it('defers a recipient the server answers 451 and delivers it on a later attempt', async () => {
    let refusals = 0;
    sink.onRcpt = (address) =>
      address === 'later@example.test' && refusals++ === 0
        ? { code: 451, message: '4.7.1 Greylisted, try again later' }
        : null;
    const before = sink.messages.length;
    const res = await s.http
      .post('/api/v1/send', basicEmail({ to: 'later@example.test' }))
      .expect(202);
    const log = await waitForMessage(s.http, res.body.data.jobId, (m) => m.status === 'delivered');
    expect(log.deliveryAttempts.map((a) => [a.status, a.smtpCode, a.retryCount])).toEqual([
      ['deferred', 451, 0],
      ['delivered', 250, 1],
    ]);
    expect(log.deliveryAttempts[0].smtpMessage).toContain('Greylisted');
    const first = Date.parse(log.deliveryAttempts[0].attemptedAt);
    const second = Date.parse(log.deliveryAttempts[1].attemptedAt);
    expect(second - first).toBeGreaterThanOrEqual(300);
    expect(sink.messages.length).toBe(before + 1);
  });

  it('defers when no connection can be made, and delivers once the server is back', async () => {
    const port = sink.port;
    await sink.close();
    const res = await s.http
      .post('/api/v1/send', basicEmail({ to: 'patient@example.test' }))
      .expect(202);
    const deferred = await waitForMessage(
      s.http,
      res.body.data.jobId,
      (m) => m.deliveryAttempts.some((a) => a.status === 'deferred') && m.status !== 'queued',
    );
    expect(deferred.status).toBe('deferred');
    expect(deferred.deliveryAttempts[0]).toMatchObject({
      status: 'deferred',
      smtpCode: null,
      mxHost: '127.0.0.1',
      retryCount: 0,
    });
    sink = await startSmtpSink(port);
    const log = await waitForMessage(s.http, res.body.data.jobId, (m) => m.status === 'delivered');
    expect(log.deliveryAttempts.at(-1)).toMatchObject({ status: 'delivered', smtpCode: 250 });
    expect(sink.messages.map((m) => m.to)).toContainEqual(['patient@example.test']);
  });

  it('bounces a recipient the server answers 550 and counts the bounce on its ContactEmail', async () => {
    await insertContactEmail(app, s.org.id, 'Gone@Example.test');
    sink.onRcpt = (address) =>
      address === 'gone@example.test' ? { code: 550, message: '5.1.1 No such user here' } : null;
    const res = await s.http
      .post('/api/v1/send', basicEmail({ to: ['gone@example.test', 'fine@example.test'] }))
      .expect(202);
    const log = await waitForMessage(
      s.http,
      res.body.data.jobId,
      (m) => m.status === 'partially_delivered',
    );
    const byRecipient = Object.fromEntries(log.deliveryAttempts.map((a) => [a.recipient, a]));
    expect(byRecipient['gone@example.test']).toMatchObject({
      status: 'bounced',
      smtpCode: 550,
      smtpMessage: expect.stringContaining('No such user'),
    });
    expect(byRecipient['fine@example.test']).toMatchObject({ status: 'delivered', smtpCode: 250 });
    const state = await contactEmailState(app, s.org.id, 'gone@example.test');
    expect(state.bounce_count).toBe(1);
    expect(state.last_bounced_at).toBeInstanceOf(Date);
    expect(state.status).toBe('bounced');
  });

  it('counts a soft bounce without marking the address bounced', async () => {
    await insertContactEmail(app, s.org.id, 'full@example.test');
    sink.onRcpt = (address) =>
      address === 'full@example.test' ? { code: 552, message: '5.2.2 Mailbox full' } : null;
    const res = await s.http
      .post('/api/v1/send', basicEmail({ to: 'full@example.test' }))
      .expect(202);
    const log = await waitForMessage(s.http, res.body.data.jobId, (m) => m.status === 'bounced');
    expect(log.deliveryAttempts[0]).toMatchObject({ status: 'bounced', smtpCode: 552 });
    const state = await contactEmailState(app, s.org.id, 'full@example.test');
    expect(state).toMatchObject({ bounce_count: 1, status: 'verified' });
  });

  it('never sends to a suppressed, bounced or complained address', async () => {
    await insertContactEmail(app, s.org.id, 'blocked@example.test', 'suppressed');
    await insertContactEmail(app, s.org.id, 'angry@example.test', 'complained');
    await insertContactEmail(app, s.org.id, 'dead@example.test', 'bounced');
    const before = sink.messages.length;
    const res = await s.http
      .post(
        '/api/v1/send',
        basicEmail({
          to: ['BLOCKED@example.test', 'open@example.test'],
          cc: 'angry@example.test',
          bcc: 'dead@example.test',
        }),
      )
      .expect(202);
    const log = await waitForMessage(
      s.http,
      res.body.data.jobId,
      (m) => m.status === 'partially_delivered',
    );
    const statuses = Object.fromEntries(log.deliveryAttempts.map((a) => [a.recipient, a.status]));
    expect(statuses).toEqual({
      'BLOCKED@example.test': 'suppressed',
      'angry@example.test': 'suppressed',
      'dead@example.test': 'suppressed',
      'open@example.test': 'delivered',
    });
    await sink.waitForMessages(before + 1);
    expect(sink.messages.slice(before).map((m) => m.to)).toEqual([['open@example.test']]);
    for (const a of ['blocked@example.test', 'angry@example.test', 'dead@example.test']) {
      expect(sink.rcptSeen.map((r) => r.toLowerCase())).not.toContain(a);
    }
    const suppressed = log.deliveryAttempts.find((a) => a.status === 'suppressed')!;
    expect(suppressed).toMatchObject({ smtpCode: null, mxHost: null });
  });

  it('marks a message with only suppressed recipients suppressed', async () => {
    await insertContactEmail(app, s.org.id, 'nobody@example.test', 'suppressed');
    const res = await s.http
      .post('/api/v1/send', basicEmail({ to: 'nobody@example.test' }))
      .expect(202);
    const log = await waitForMessage(s.http, res.body.data.jobId, (m) => m.status === 'suppressed');
    expect(log.deliveryAttempts).toHaveLength(1);
  });

  it('refuses sending while the subscription is past due or canceled (402), from the next send on', async () => {
    const other = await createSession(app, { plan: 'pro' });
    // The organization is cached by its first send; a change drops the copy at once.
    await other.http.post('/api/v1/send', basicEmail()).expect(202);
    for (const status of ['past_due', 'canceled'] as const) {
      await app.get(OrganizationService).update(other.org.id, { subscriptionStatus: status });
      const res = await other.http.post('/api/v1/send', basicEmail()).expect(402);
      expect(res.body).toEqual({
        success: false,
        message: expect.any(String),
        code: 'SUBSCRIPTION_REQUIRED',
      });
    }
    const [{ count }] = await app
      .get(DataSource)
      .query(`SELECT count(*)::int AS count FROM messages WHERE organization_id = $1`, [
        other.org.id,
      ]);
    expect(count).toBe(1);
  });

  it('requires the messages:send scope', async () => {
    const reader = await createSession(app, { scopes: ['messages:read'] });
    const res = await reader.http.post('/api/v1/send', basicEmail()).expect(403);
    expect(res.body.code).toBe('E_INSUFFICIENT_SCOPE');
  });
});
