// POST /api/v1/send/sms end to end (§17): the api listening on PUBLIC_BASE_URL, the worker in this
// process, the Twilio fake taking the sends and posting signed status callbacks and inbound texts.
import { INestApplication } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { blindIndexOf, fieldCipher } from '@app/domain';
import { waitForMessage } from '../sending/support/sending';
import { TwilioFake } from '../support/providers/twilio-fake';
import { createSession, Session } from '../support/session';
import { waitFor } from '../support/wait-for';
import { Receiver } from '../webhooks/webhook-support';
import {
  ChannelStack,
  connect,
  spentForTheDay,
  startChannelStack,
  twilioAccount,
} from './support/accounts';

const OUR_NUMBER = '+15005550006';

describe('POST /api/v1/send/sms → Twilio → status callbacks', () => {
  let twilio: TwilioFake;
  let stack: ChannelStack;
  let app: INestApplication;
  let s: Session;
  let ds: DataSource;
  let providerId: string;
  let base: string;
  let receiver: Receiver;
  /** Every log line of the api and the worker, at debug level, for the secrets check. */
  let lines: string[];
  /** Every response body of this file's sends. */
  const bodies: string[] = [];
  /** Every job the api and the worker put on the delivery queue. */
  let payloads: string[];

  beforeAll(async () => {
    twilio = await TwilioFake.start();
    stack = await startChannelStack();
    ({ app, base, lines, payloads } = stack);
    s = await createSession(app, { plan: 'pro' });
    ds = app.get(DataSource);
    providerId = await connect(s, twilioAccount(twilio, OUR_NUMBER));
    receiver = await new Receiver().start();
    await s.http
      .post('/api/v1/user/webhook-endpoints', {
        url: receiver.url,
        events: ['message.sent', 'message.delivered', 'message.failed', 'contact.unsubscribed'],
      })
      .expect(201);
  });
  afterAll(async () => {
    await stack.stop();
    await twilio.stop();
    await receiver.stop();
  });

  const callbackUrl = () => `${base}/channels/callbacks/${providerId}`;

  async function insertSmsContact(phone: string, status = 'verified'): Promise<string> {
    const [contact]: { id: string }[] = await ds.query(
      `INSERT INTO contacts (organization_id, status) VALUES ($1, 'active') RETURNING id`,
      [s.org.id],
    );
    await ds.query(
      `INSERT INTO contact_sms (organization_id, contact_id, phone_number, phone_hash, country_code,
         status, is_primary) VALUES ($1, $2, $3, $4, 'US', $5, true)`,
      [s.org.id, contact.id, fieldCipher().encrypt(phone), blindIndexOf('phone', phone), status],
    );
    return contact.id;
  }

  const smsStatus = async (phone: string): Promise<string[]> =>
    (
      await ds.query(
        `SELECT status FROM contact_sms WHERE organization_id = $1 AND phone_hash = $2`,
        [s.org.id, blindIndexOf('phone', phone)],
      )
    ).map((r: { status: string }) => r.status);

  interface Delivered {
    type: string;
    data: Record<string, unknown>;
  }
  const received = (): Delivered[] => receiver.requests.map((r) => JSON.parse(r.body) as Delivered);
  /** The webhook events of one message, once `count` have arrived. */
  const eventsOf = (jobId: string, count: number) =>
    waitFor(
      () => {
        const mine = received().filter((e) => e.data.jobId === jobId);
        return mine.length >= count ? mine : null;
      },
      { what: `${count} events of ${jobId}` },
    );

  async function send(to: Record<string, string>, text = 'Your code is 123456') {
    const res = await s.http.post('/api/v1/send/sms', { to, content: { text } }).expect(202);
    bodies.push(res.text);
    expect(res.body.data).toEqual({
      jobId: expect.stringMatching(/^job_[0-9A-HJKMNP-TV-Z]{26}$/),
      channel: 'sms',
      status: 'queued',
    });
    return res.body.data.jobId as string;
  }

  it('sends by raw number, is delivered by a signed callback, and never moves back', async () => {
    const jobId = await send({ phoneNumber: '+1 (415) 555-0111' });
    const sent = await waitForMessage(s.http, jobId, (m) => m.status === 'sent');
    expect(sent).toMatchObject({ channel: 'sms', recipients: ['+14155550111'] });
    expect(sent.deliveryAttempts).toEqual([
      expect.objectContaining({ status: 'sent', segments: 1, providerCode: null }),
    ]);
    const taken = twilio.messages.find((m) => m.to === '+14155550111')!;
    expect(taken).toMatchObject({ from: OUR_NUMBER, body: 'Your code is 123456' });
    expect(taken.statusCallback).toBe(callbackUrl());

    expect((await twilio.deliver(taken.sid, 'delivered')).status).toBe(200);
    const delivered = await waitForMessage(s.http, jobId, (m) => m.status === 'delivered');
    expect(delivered.deliveryAttempts.map((a) => a.status)).toEqual(['sent', 'delivered']);
    // Late and repeated reports change nothing.
    expect((await twilio.deliver(taken.sid, 'sent')).status).toBe(200);
    expect((await twilio.deliver(taken.sid, 'delivered')).status).toBe(200);
    const after = await waitForMessage(s.http, jobId, () => true);
    expect(after.status).toBe('delivered');
    // The log finds it by its number, written as the sender wrote it, and by its channel.
    const found = await s.http
      .get(`/api/v1/user/messages?channel=sms&recipient=${encodeURIComponent('+1 (415) 555-0111')}`)
      .expect(200);
    expect(found.body.data.map((m: { jobId: string }) => m.jobId)).toEqual([jobId]);
    const emails = await s.http.get('/api/v1/user/messages?channel=email').expect(200);
    expect(emails.body.data).toEqual([]);
    expect(after.deliveryAttempts).toHaveLength(2);
    const events = await eventsOf(jobId, 2);
    expect(events.map((e) => e.type).sort()).toEqual(['message.delivered', 'message.sent']);
    expect(events.find((e) => e.type === 'message.delivered')!.data).toMatchObject({
      channel: 'sms',
      recipient: '+14155550111',
      providerMessageId: taken.sid,
    });
  });

  it('sends the links of a tracked SMS through short links that record a click', async () => {
    const res = await s.http
      .post('/api/v1/send/sms', {
        to: { phoneNumber: '+14155550119' },
        content: { text: 'Track it: https://shop.example/o/42?x=1. Or https://shop.example/help' },
        track: { clicks: true },
      })
      .expect(202);
    const jobId = res.body.data.jobId as string;
    const sent = await waitForMessage(s.http, jobId, (m) => m.status === 'sent');
    const body = twilio.messages.find((m) => m.to === '+14155550119')!.body;
    const links = [...body.matchAll(/http:\/\/127\.0\.0\.1:\d+\/t\/c\/([0-9A-Za-z]{12})/g)];
    expect(body).toMatch(/^Track it: http:\/\/\S+\. Or http:\/\/\S+$/);
    expect(links).toHaveLength(2);
    expect(sent.deliveryAttempts[0]).toMatchObject({ segments: 1 });

    const hit = await fetch(links[0][0], { redirect: 'manual' });
    expect(hit.status).toBe(302);
    expect(hit.headers.get('location')).toBe('https://shop.example/o/42?x=1');
    const clicked = await waitForMessage(s.http, jobId, (m) => m.engagementEvents.length > 0);
    expect(clicked.engagementEvents).toEqual([
      expect.objectContaining({ type: 'clicked', recipient: '+14155550119' }),
    ]);
    expect((await fetch(`${base}/t/c/AAAAAAAAAAAA`, { redirect: 'manual' })).status).toBe(404);
  });

  it('refuses a forged callback with 403 and changes nothing', async () => {
    const jobId = await send({ phoneNumber: '+14155550112' });
    await waitForMessage(s.http, jobId, (m) => m.status === 'sent');
    const taken = twilio.messages.find((m) => m.to === '+14155550112')!;
    const body = new URLSearchParams({
      MessageSid: taken.sid,
      MessageStatus: 'delivered',
      AccountSid: twilio.accountSid,
    }).toString();
    const forged = await fetch(callbackUrl(), {
      method: 'POST',
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        'X-Twilio-Signature': 'bm90IGEgc2lnbmF0dXJlIGF0IGFsbA==',
      },
      body,
    });
    expect(forged.status).toBe(403);
    expect(await forged.json()).toMatchObject({ code: 'E_FORBIDDEN' });
    const unchanged = await waitForMessage(s.http, jobId, () => true);
    expect(unchanged.status).toBe('sent');
    expect(unchanged.deliveryAttempts).toHaveLength(1);
  });

  it('sends by contactId to its primary number', async () => {
    const contactId = await insertSmsContact('+14155550113');
    const jobId = await send({ contactId });
    await waitForMessage(s.http, jobId, (m) => m.status === 'sent');
    expect(twilio.messages.some((m) => m.to === '+14155550113')).toBe(true);
  });

  it('opts out on each STOP keyword in any case, back in on START; an opted-out number is suppressed', async () => {
    const phone = '+14155550114';
    await insertSmsContact(phone, 'verified');
    for (const word of ['STOP', ' stop ', 'StopAll', 'unsubscribe', 'Cancel ', 'end', 'QUIT']) {
      expect((await twilio.inbound(phone, OUR_NUMBER, word, callbackUrl())).status).toBe(200);
      expect(await smsStatus(phone)).toEqual(['opted_out']);
      expect((await twilio.inbound(phone, OUR_NUMBER, ' Start', callbackUrl())).status).toBe(200);
      expect(await smsStatus(phone)).toEqual(['verified']);
    }
    await twilio.inbound(phone, OUR_NUMBER, 'UNSTOP', callbackUrl());
    expect(await smsStatus(phone)).toEqual(['verified']);
    await twilio.inbound(phone, OUR_NUMBER, 'stop', callbackUrl());
    const unsubscribed = await waitFor(
      () => {
        const all = received().filter((e) => e.type === 'contact.unsubscribed');
        return all.length >= 8 ? all : null;
      },
      { what: 'eight contact.unsubscribed events' },
    );
    expect(unsubscribed[0].data).toMatchObject({ channel: 'sms', reason: 'stop_keyword' });

    const before = twilio.messages.length;
    const jobId = await send({ phoneNumber: phone });
    const suppressed = await waitForMessage(s.http, jobId, (m) => m.status === 'suppressed');
    expect(suppressed.deliveryAttempts).toEqual([
      expect.objectContaining({ status: 'suppressed' }),
    ]);
    expect(twilio.messages.length).toBe(before);
    const events = await eventsOf(jobId, 1);
    expect(events.map((e) => e.type)).toEqual(['message.failed']);
  });

  it('defers on a 429 until its Retry-After, then sends', async () => {
    // When the retry may come (the account paused for the Retry-After, the message deferred to its
    // end) is proven on a fixed clock in channel-delivery.service.spec.ts; here, the wiring.
    twilio.failNext(1, 429, 1);
    const jobId = await send({ phoneNumber: '+14155550115' });
    const sent = await waitForMessage(s.http, jobId, (m) => m.status === 'sent');
    expect(sent.deliveryAttempts.map((a) => a.status)).toEqual(['deferred', 'sent']);
    expect(sent.deliveryAttempts[0]).toMatchObject({ providerCode: '429' });
    expect(twilio.messages.filter((m) => m.to === '+14155550115')).toHaveLength(1);
  });

  it('defers through an outage and loses nothing when the provider returns', async () => {
    await twilio.stop();
    const jobId = await send({ phoneNumber: '+14155550116' });
    await waitForMessage(s.http, jobId, (m) => m.status === 'deferred');
    await twilio.start();
    const sent = await waitForMessage(s.http, jobId, (m) => m.status === 'sent', 20_000);
    expect(sent.deliveryAttempts[0].status).toBe('deferred');
    expect(twilio.messages.filter((m) => m.to === '+14155550116')).toHaveLength(1);
  });

  it('answers 422 naming the field for bad input and 404 for another organization', async () => {
    const bad = await s.http
      .post('/api/v1/send/sms', { to: { phoneNumber: 'not a number' }, content: { text: 'x' } })
      .expect(422);
    expect(JSON.stringify(bad.body)).toContain('to.phoneNumber');
    const both = await s.http
      .post('/api/v1/send/sms', {
        to: { phoneNumber: '+14155550117', contactId: '00000000-0000-4000-8000-000000000000' },
        content: { text: 'x' },
      })
      .expect(422);
    expect(JSON.stringify(both.body)).toContain('"to"');
    const other = await createSession(app, { plan: 'pro' });
    await other.http
      .post('/api/v1/send/sms', {
        to: { phoneNumber: '+14155550117' },
        content: { text: 'x' },
        providerId,
      })
      .expect(404);
    const none = await other.http
      .post('/api/v1/send/sms', { to: { phoneNumber: '+14155550117' }, content: { text: 'x' } })
      .expect(422);
    expect(JSON.stringify(none.body)).toContain('providerId');
  });

  it('counts SMS in the same organization windows as email: at its limit, every channel is 429', async () => {
    const limited = await spentForTheDay(app, twilioAccount(twilio, OUR_NUMBER));
    const refused = await limited.http
      .post('/api/v1/send/sms', { to: { phoneNumber: '+14155550118' }, content: { text: 'x' } })
      .expect(429);
    expect(refused.body).toMatchObject({ code: 'E_TOO_MANY_REQUESTS' });
  });

  it('never puts the credentials or a number in a response, a log line or a queue payload', async () => {
    const secrets = [twilio.authToken, '+14155550111', '+14155550114', '4155550111'];
    expect(lines.length).toBeGreaterThan(20);
    expect(bodies.length).toBeGreaterThan(5);
    // The first sends and the deferred ones' follow-ups were queued, by the api and the worker.
    expect(payloads.length).toBeGreaterThan(5);
    for (const secret of secrets) {
      expect(lines.filter((l) => l.includes(secret))).toEqual([]);
      expect(bodies.filter((b) => b.includes(secret))).toEqual([]);
      expect(payloads.filter((p) => p.includes(secret))).toEqual([]);
    }
  });
});
