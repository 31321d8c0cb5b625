// email.* webhook events end to end: the send API and the worker deliver into a real SMTP sink,
// the dispatcher POSTs the events to real HTTP receivers on loopback, and the tracking endpoints
// raise opens and clicks.
import { INestApplication } from '@nestjs/common';
import { SendService } from '@app/domain';
import { createHmac } from 'node:crypto';
import request from 'supertest';
import { createSession, Session } from '../support/session';
import { startSmtpSink, SmtpSink } from '../sending/support/smtp-sink';
import { insertContactEmail } from '../sending/support/sending';
import { startTcpProxy } from '../sending/support/tcp-proxy';
import { createApiApp, createWorker, Receiver, Received, testConfig } from './webhook-support';
import { holdsFor, waitFor } from '../support/wait-for';

const ENDPOINTS = '/api/v1/user/webhook-endpoints';
const DELIVERIES = '/api/v1/user/webhook-deliveries';
const EMAIL_EVENTS = [
  'email.sent',
  'email.delivered',
  'email.deferred',
  'email.bounced',
  'email.opened',
  'email.clicked',
  'email.complained',
];
const UA = 'Mozilla/5.0 (EmailEventsTest)';

interface Event {
  delivery_id: string;
  type: string;
  timestamp: string;
  data: Record<string, unknown> & { jobId: string };
}

function verifies(secret: string, r: Received): boolean {
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(r.headers['x-webhook-signature']));
  if (!m) return false;
  return createHmac('sha256', secret).update(`${m[1]}.${r.body}`).digest('hex') === m[2];
}

const parse = (r: Received) => JSON.parse(r.body) as Event;

/** Requests a receiver got for one job, optionally of one type. */
function requestsFor(receiver: Receiver, jobId: string, type?: string): Received[] {
  return receiver.requests.filter((r) => {
    const e = parse(r);
    return e.data?.jobId === jobId && (!type || e.type === type);
  });
}

function tokenFrom(html: string, kind: 'o' | 'c'): string {
  const re = kind === 'o' ? /\/t\/o\/([A-Za-z0-9_-]+)\.gif/ : /\/t\/c\/([A-Za-z0-9_-]+)"/;
  return re.exec(html)![1];
}

describe('email.* webhook events (e2e)', () => {
  let sink: SmtpSink;
  let api: INestApplication;
  let worker: INestApplication;
  let subscribed: Receiver;
  let unsubscribed: Receiver;
  let otherOrgReceiver: Receiver;
  let s: Session;
  let other: Session;
  let secret: string;
  let endpointId: string;
  const config = () =>
    testConfig('email-events', {
      webhookAllowPrivateTargets: true,
      smtpOutboundUrl: sink.url,
      deliveryRetryBaseMs: 300,
      publicBaseUrl: 'https://track.example.test',
      sendIpAllowlist: ['127.0.0.1', '::1'],
    });

  beforeAll(async () => {
    sink = await startSmtpSink();
    api = await createApiApp(config());
    worker = await createWorker(config());
    subscribed = await new Receiver().start();
    unsubscribed = await new Receiver().start();
    otherOrgReceiver = await new Receiver().start();
    s = await createSession(api, { plan: 'pro' });
    other = await createSession(api, { plan: 'pro' });

    const a = await s.http
      .post(ENDPOINTS, { url: `${subscribed.url}/email`, events: EMAIL_EVENTS })
      .expect(201);
    endpointId = a.body.data.id;
    secret = a.body.data.secret;
    // Same organization: one endpoint subscribed to other events only, one inactive.
    await s.http
      .post(ENDPOINTS, { url: `${unsubscribed.url}/contacts`, events: ['contact.created'] })
      .expect(201);
    await s.http
      .post(ENDPOINTS, { url: `${unsubscribed.url}/off`, events: EMAIL_EVENTS, isActive: false })
      .expect(201);
    // Another organization subscribed to everything.
    await other.http
      .post(ENDPOINTS, { url: `${otherOrgReceiver.url}/email`, events: EMAIL_EVENTS })
      .expect(201);
  });
  afterAll(async () => {
    await worker.close();
    await api.close();
    for (const r of [subscribed, unsubscribed, otherOrgReceiver]) await r.stop();
    await sink.close();
  });
  beforeEach(() => {
    sink.onRcpt = undefined;
  });

  async function send(session: Session, body: Record<string, unknown>) {
    const res = await session.http
      .post('/api/v1/send', {
        from: 'Sender <sender@sender.test>',
        subject: 'Private subject line',
        text: 'Private body text',
        ...body,
      })
      .expect(202);
    return res.body.data as { jobId: string; messageId: string };
  }

  const waitForEvents = (receiver: Receiver, jobId: string, type: string, n = 1) =>
    waitFor(
      () => {
        const seen = requestsFor(receiver, jobId, type);
        return seen.length >= n ? seen : null;
      },
      { what: `${n} ${type} for ${jobId}` },
    );

  /** Until no webhook delivery of the organization is pending: nothing more is on its way. */
  const settled = (session: Session) =>
    waitFor(
      async () => {
        const res = await session.http.get(`${DELIVERIES}?status=pending&limit=1`).expect(200);
        return res.body.data.length === 0;
      },
      { what: 'no pending webhook deliveries' },
    );

  const messageStatus = (jobId: string, status: string) =>
    waitFor(
      async () => {
        const res = await s.http.get(`/api/v1/user/messages/${jobId}`);
        return res.status === 200 && res.body.data.status === status;
      },
      { what: `message ${jobId} ${status}` },
    );

  it('a delivered send gives one signed email.sent and exactly one email.delivered', async () => {
    const { jobId, messageId } = await send(s, { to: 'ok@example.test', tags: ['welcome'] });
    await messageStatus(jobId, 'delivered');
    await waitForEvents(subscribed, jobId, 'email.delivered');
    await settled(s);
    await holdsFor(() => expect(requestsFor(subscribed, jobId)).toHaveLength(2));

    const sent = requestsFor(subscribed, jobId, 'email.sent');
    const delivered = requestsFor(subscribed, jobId, 'email.delivered');
    expect(sent).toHaveLength(1);
    expect(delivered).toHaveLength(1);
    expect(requestsFor(subscribed, jobId)).toHaveLength(2);
    for (const r of [...sent, ...delivered]) {
      expect(verifies(secret, r)).toBe(true);
      expect(r.body).not.toContain('Private');
      expect(r.headers['x-webhook-event']).toBe(parse(r).type);
    }
    const common = {
      messageId,
      jobId,
      recipient: 'ok@example.test',
      recipientType: 'to',
      campaignId: null,
      contactId: null,
      tags: ['welcome'],
    };
    expect(parse(sent[0]).data).toEqual({
      ...common,
      source: 'api',
      status: 'queued',
      timestamp: expect.any(String),
    });
    const event = parse(delivered[0]);
    expect(event.data).toEqual({
      ...common,
      status: 'delivered',
      smtpCode: 250,
      smtpResponse: expect.stringMatching(/^250 /),
      mxHost: '127.0.0.1',
      attempt: 1,
      bounceType: null,
      nextAttemptAt: null,
      timestamp: event.timestamp,
    });
    // The message log's attempt and the event describe the same moment.
    const log = await s.http.get(`/api/v1/user/messages/${jobId}`).expect(200);
    expect(log.body.data.deliveryAttempts[0].attemptedAt).toBe(event.timestamp);

    // Stored once, for the subscribed endpoint only, and delivered.
    const stored = await s.http
      .get(`${DELIVERIES}?type=email.delivered&limit=100`)
      .expect(200)
      .then((r) => r.body.data as { webhookEndpointId: string; status: string; payload: Event }[]);
    const mine = stored.filter((d) => d.payload.data.jobId === jobId);
    expect(mine).toEqual([
      expect.objectContaining({ webhookEndpointId: endpointId, status: 'delivered' }),
    ]);
    expect(mine[0].payload.delivery_id).toBe(event.delivery_id);
  });

  it('concurrent sends (recorded together) give one email.delivered each', async () => {
    const sends = await Promise.all(
      Array.from({ length: 8 }, (_, i) => send(s, { to: `batch${i}@example.test` })),
    );
    for (const { jobId } of sends) await waitForEvents(subscribed, jobId, 'email.delivered');
    await settled(s);
    for (const [i, { jobId }] of sends.entries()) {
      const delivered = requestsFor(subscribed, jobId, 'email.delivered');
      expect(delivered).toHaveLength(1);
      expect(parse(delivered[0]).data.recipient).toBe(`batch${i}@example.test`);
      expect(requestsFor(subscribed, jobId, 'email.sent')).toHaveLength(1);
    }
  });

  it('a 550 gives email.bounced (hard) and no email.delivered', async () => {
    sink.onRcpt = (address) =>
      address === 'gone@example.test' ? { code: 550, message: '5.1.1 No such user' } : null;
    const { jobId, messageId } = await send(s, { to: 'gone@example.test' });
    await messageStatus(jobId, 'bounced');
    const [bounced] = await waitForEvents(subscribed, jobId, 'email.bounced');
    await settled(s);
    expect(verifies(secret, bounced)).toBe(true);
    expect(parse(bounced).data).toMatchObject({
      messageId,
      jobId,
      recipient: 'gone@example.test',
      status: 'bounced',
      smtpCode: 550,
      smtpResponse: expect.stringContaining('No such user'),
      bounceType: 'hard',
      attempt: 1,
      nextAttemptAt: null,
    });
    expect(requestsFor(subscribed, jobId).map((r) => parse(r).type)).toEqual([
      'email.sent',
      'email.bounced',
    ]);
  });

  it('a recipient whose address is suppressed gives email.bounced with status suppressed', async () => {
    await insertContactEmail(api, s.org.id, 'blocked@example.test', 'suppressed');
    const { jobId } = await send(s, { to: 'blocked@example.test' });
    await messageStatus(jobId, 'suppressed');
    const [bounced] = await waitForEvents(subscribed, jobId, 'email.bounced');
    expect(parse(bounced).data).toMatchObject({
      recipient: 'blocked@example.test',
      status: 'suppressed',
      smtpCode: null,
      smtpResponse: 'Not sent: the address is suppressed',
      bounceType: null,
    });
    expect(sink.rcptSeen).not.toContain('blocked@example.test');
  });

  it('a 451 gives email.deferred with the next attempt, then email.delivered', async () => {
    let refusals = 0;
    sink.onRcpt = (address) =>
      address === 'later@example.test' && refusals++ === 0
        ? { code: 451, message: '4.7.1 Greylisted, try again later' }
        : null;
    const { jobId } = await send(s, { to: 'later@example.test' });
    const [deferred] = await waitForEvents(subscribed, jobId, 'email.deferred');
    expect(parse(deferred).data).toMatchObject({
      recipient: 'later@example.test',
      status: 'deferred',
      smtpCode: 451,
      smtpResponse: expect.stringContaining('Greylisted'),
      attempt: 1,
      bounceType: null,
      nextAttemptAt: expect.any(String),
    });
    const d = parse(deferred).data;
    expect(Date.parse(d.nextAttemptAt as string)).toBeGreaterThan(
      Date.parse(d.timestamp as string),
    );

    const [delivered] = await waitForEvents(subscribed, jobId, 'email.delivered');
    expect(parse(delivered).data).toMatchObject({ status: 'delivered', smtpCode: 250, attempt: 2 });
    await settled(s);
    expect(requestsFor(subscribed, jobId, 'email.deferred')).toHaveLength(1);
    expect(requestsFor(subscribed, jobId, 'email.delivered')).toHaveLength(1);
  });

  it('an open and a click give email.opened and email.clicked', async () => {
    const { jobId, messageId } = await send(s, {
      to: 'reader@example.test',
      html: '<p>Hi</p><a href="https://shop.example.test/p?id=7">Buy</a>',
      track: { opens: true, clicks: true },
    });
    const mail = await waitFor(() => sink.messages.find((m) => m.parsed.messageId === messageId), {
      what: 'the tracked mail',
    });
    const html = String(mail.parsed.html);
    await request(api.getHttpServer())
      .get(`/t/o/${tokenFrom(html, 'o')}.gif`)
      .set('User-Agent', UA)
      .expect(200);
    const click = await request(api.getHttpServer())
      .get(`/t/c/${tokenFrom(html, 'c')}`)
      .set('User-Agent', UA)
      .expect(302);
    expect(click.headers.location).toBe('https://shop.example.test/p?id=7');

    const [opened] = await waitForEvents(subscribed, jobId, 'email.opened');
    const [clicked] = await waitForEvents(subscribed, jobId, 'email.clicked');
    for (const r of [opened, clicked]) expect(verifies(secret, r)).toBe(true);
    const common = {
      messageId,
      jobId,
      recipient: 'reader@example.test',
      recipientType: 'to',
      campaignId: null,
      contactId: null,
      tags: [],
      userAgent: UA,
      remoteIp: '127.0.0.1',
      timestamp: expect.any(String),
    };
    expect(parse(opened).data).toEqual(common);
    expect(parse(clicked).data).toEqual({ ...common, url: 'https://shop.example.test/p?id=7' });
    // The token never leaves in a webhook.
    expect(opened.body).not.toContain(tokenFrom(html, 'o'));
  });

  it('a message relayed over SMTP gives email.sent with source smtp', async () => {
    const raw = Buffer.from(
      'From: sender@sender.test\r\nTo: relayed@example.test\r\nSubject: Relayed\r\n\r\nRelayed body\r\n',
    );
    const { jobId } = await api.get(SendService).submitRaw(s.org.id, {
      raw,
      envelopeFrom: 'sender@sender.test',
      recipients: ['relayed@example.test'],
    });
    const [sent] = await waitForEvents(subscribed, jobId, 'email.sent');
    expect(parse(sent).data).toMatchObject({
      jobId,
      recipient: 'relayed@example.test',
      source: 'smtp',
      status: 'queued',
    });
    await waitForEvents(subscribed, jobId, 'email.delivered');
    expect(sent.body).not.toContain('Relayed body');
  });

  it('gives email.sent to an endpoint created after messages that had none to go to', async () => {
    // The message repository stops building email.sent events for an organization whose last
    // messages found no subscribed endpoint; a new endpoint must still get the next ones.
    const late = await createSession(api, { plan: 'pro' });
    const receiver = await new Receiver().start();
    try {
      const relay = (to: string) =>
        api.get(SendService).submitRaw(late.org.id, {
          raw: Buffer.from(
            `From: sender@sender.test\r\nTo: ${to}\r\nSubject: Late\r\n\r\nBody\r\n`,
          ),
          envelopeFrom: 'sender@sender.test',
          recipients: [to],
        });
      const before = [
        await send(late, { to: 'early@example.test' }),
        await relay('early2@example.test'),
      ];
      for (const { jobId } of before) {
        await late.http.get(`/api/v1/user/messages/${jobId}`).expect(200);
      }
      expect((await late.http.get(DELIVERIES).expect(200)).body.data).toHaveLength(0);

      await late.http
        .post(ENDPOINTS, { url: `${receiver.url}/late`, events: ['email.sent'] })
        .expect(201);
      const after = [
        await relay('late@example.test'),
        await send(late, { to: 'late2@example.test' }),
      ];
      for (const { jobId } of after) {
        const [sent] = await waitForEvents(receiver, jobId, 'email.sent');
        expect(parse(sent).data.jobId).toBe(jobId);
        // Stored once: the statement that found the new endpoint wrote nothing before the rerun.
        const res = await late.http.get(`/api/v1/user/messages/${jobId}`).expect(200);
        expect(res.body.data.jobId).toBe(jobId);
      }
      await settled(late);
      for (const { jobId } of [...before, ...after]) {
        expect(requestsFor(receiver, jobId, 'email.sent')).toHaveLength(
          after.some((a) => a.jobId === jobId) ? 1 : 0,
        );
      }
      const rows = (await late.http.get(`${DELIVERIES}?limit=100`).expect(200)).body.data;
      expect(rows).toHaveLength(2);
    } finally {
      await receiver.stop();
    }
  });

  it('keeps answering the pixel and the redirect while the webhook store is down', async () => {
    const { jobId, messageId } = await send(s, {
      to: 'outage@example.test',
      html: '<p>Hi</p><a href="https://shop.example.test/outage">Go</a>',
      track: { opens: true, clicks: true },
    });
    const mail = await waitFor(() => sink.messages.find((m) => m.parsed.messageId === messageId), {
      what: 'the tracked mail',
    });
    const html = String(mail.parsed.html);
    // A second api whose main database (webhooks, message log) sits behind a proxy; its
    // engagement store is the real database.
    const proxy = await startTcpProxy(process.env.DATABASE_URL!);
    const cut = await createApiApp({
      ...config(),
      databaseUrl: proxy.rewrite(process.env.DATABASE_URL!),
      engagementDatabaseUrl: process.env.DATABASE_URL!,
    });
    try {
      await proxy.stop();
      await request(cut.getHttpServer())
        .get(`/t/o/${tokenFrom(html, 'o')}.gif`)
        .expect(200);
      const res = await request(cut.getHttpServer())
        .get(`/t/c/${tokenFrom(html, 'c')}`)
        .expect(302);
      expect(res.headers.location).toBe('https://shop.example.test/outage');
    } finally {
      await cut.close();
    }
    // The engagement events were recorded; their webhook events were lost with the store.
    const log = await waitFor(
      async () => {
        const r = await s.http.get(`/api/v1/user/messages/${jobId}`).expect(200);
        return r.body.data.engagementEvents.length >= 2 ? r.body.data : null;
      },
      { what: 'two engagement events' },
    );
    expect(log.engagementEvents.map((e: { type: string }) => e.type).sort()).toEqual([
      'clicked',
      'opened',
    ]);
    await settled(s);
    expect(requestsFor(subscribed, jobId, 'email.opened')).toHaveLength(0);
    expect(requestsFor(subscribed, jobId, 'email.clicked')).toHaveLength(0);
  });

  it('sends nothing to unsubscribed or inactive endpoints, nor to another organization', async () => {
    // The other organization's own mail reaches its own endpoint only.
    const { jobId } = await send(other, { to: 'theirs@example.test' });
    await waitForEvents(otherOrgReceiver, jobId, 'email.delivered');
    await settled(other);
    await settled(s);
    expect(requestsFor(subscribed, jobId)).toHaveLength(0);

    expect(unsubscribed.requests).toHaveLength(0);
    const ours = subscribed.requests.map((r) => parse(r).data.jobId);
    expect(ours.length).toBeGreaterThan(0);
    expect(
      otherOrgReceiver.requests.filter((r) => ours.includes(parse(r).data.jobId)),
    ).toHaveLength(0);
    expect(new Set(otherOrgReceiver.requests.map((r) => parse(r).data.jobId))).toEqual(
      new Set([jobId]),
    );
  });
});
