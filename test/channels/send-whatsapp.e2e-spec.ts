// POST /api/v1/send/whatsapp end to end (§17): the api listening on PUBLIC_BASE_URL, the worker in
// this process, the WhatsApp Cloud API fake taking the sends (refusing free text outside the
// customer-service window, and numbers it marks blocked) and posting signed status notifications
// and inbound messages to the account's callback URL.
import { DataSource } from 'typeorm';
import { waitForMessage } from '../sending/support/sending';
import { WhatsappFake, hubSignature256, metaJson } from '../support/providers/whatsapp-fake';
import { createSession, Session } from '../support/session';
import { waitFor } from '../support/wait-for';
import { Receiver } from '../webhooks/webhook-support';
import {
  ChannelStack,
  connect,
  contactOf,
  createContact,
  startChannelStack,
  whatsappAccount,
} from './support/accounts';

const VERIFY_TOKEN = 'verify-me-7d1c';

describe('POST /api/v1/send/whatsapp → WhatsApp Cloud API → status notifications', () => {
  let wa: WhatsappFake;
  let stack: ChannelStack;
  let s: Session;
  let ds: DataSource;
  let providerId: string;
  let receiver: Receiver;
  const bodies: string[] = [];

  beforeAll(async () => {
    wa = await WhatsappFake.start();
    stack = await startChannelStack();
    s = await createSession(stack.app, { plan: 'pro' });
    ds = stack.app.get(DataSource);
    providerId = await connect(s, whatsappAccount(wa, VERIFY_TOKEN));
    wa.callbackUrl = callbackUrl(providerId);
    receiver = await new Receiver().start();
    await s.http
      .post('/api/v1/user/webhook-endpoints', {
        url: receiver.url,
        events: ['message.sent', 'message.delivered', 'message.read', 'message.failed'],
      })
      .expect(201);
  });
  afterAll(async () => {
    await stack.stop();
    await wa.stop();
    await receiver.stop();
  });

  const callbackUrl = (id: string) => `${stack.base}/channels/callbacks/${id}`;

  async function send(to: Record<string, string>, content: object = { text: 'Hello there' }) {
    const res = await s.http.post('/api/v1/send/whatsapp', { to, content }).expect(202);
    bodies.push(res.text);
    expect(res.body.data).toMatchObject({ channel: 'whatsapp', status: 'queued' });
    return res.body.data.jobId as string;
  }
  /** The message the fake accepted for `phone` (digits as Meta keeps them). */
  const taken = (phone: string) => wa.messages.filter((m) => m.waId === phone.replace(/\D/g, ''));
  /** The types of the webhook events of one message, as the endpoint received them. */
  const eventTypes = (jobId: string): string[] =>
    receiver.requests
      .map((r) => JSON.parse(r.body) as { type: string; data: { jobId: string } })
      .filter((e) => e.data.jobId === jobId)
      .map((e) => e.type);

  it("answers Meta's hub.challenge with the account's verify token, 403 with any other", async () => {
    const ok = await wa.verifyCallback(VERIFY_TOKEN);
    expect(ok).toMatchObject({ verified: true, status: 200 });
    expect(ok.body).toBe(ok.challenge);
    const wrong = await wa.verifyCallback('not-the-token');
    expect(wrong.status).toBe(403);
    expect(wrong.verified).toBe(false);
    expect(wrong.body).not.toContain(wrong.challenge);
  });

  it('sends by number inside the window; delivered, then read: an opened engagement and message.read', async () => {
    const phone = '+14155550121';
    wa.openWindow(phone);
    const jobId = await send({ phoneNumber: phone });
    const sent = await waitForMessage(s.http, jobId, (m) => m.status === 'sent');
    expect(sent.deliveryAttempts).toEqual([expect.objectContaining({ status: 'sent' })]);
    const [m] = taken(phone);
    expect(m).toMatchObject({ type: 'text', text: { body: 'Hello there' }, opaque: jobId });

    expect((await wa.status(m.id, 'delivered')).status).toBe(200);
    await waitForMessage(s.http, jobId, (x) => x.status === 'delivered');
    expect((await wa.status(m.id, 'read')).status).toBe(200);
    const read = await waitForMessage(s.http, jobId, (x) => x.engagementEvents.length > 0);
    expect(read.status).toBe('delivered');
    expect(read.engagementEvents).toEqual([
      expect.objectContaining({ type: 'opened', recipient: phone }),
    ]);
    const stored: { type: string }[] = await ds.query(
      `SELECT type FROM webhook_deliveries WHERE organization_id = $1 AND type = 'message.read'`,
      [s.org.id],
    );
    expect(stored).toHaveLength(1);
    const types = await waitFor(() => eventTypes(jobId).length >= 3 && eventTypes(jobId), {
      what: 'three events of the message',
    });
    expect(types.sort()).toEqual(['message.delivered', 'message.read', 'message.sent']);

    // A late `sent` after `delivered` never moves it back.
    expect((await wa.status(m.id, 'sent')).status).toBe(200);
    const after = await waitForMessage(s.http, jobId, () => true);
    expect(after.status).toBe('delivered');
    expect(after.deliveryAttempts.map((a) => a.status)).toEqual(['sent', 'delivered']);
  });

  it("sends by contactId to the contact's WhatsApp number; its inbound message sets lastSeenAt", async () => {
    const phone = '+14155550122';
    const contactId = await createContact(s, { whatsappAccounts: [{ phoneNumber: phone }] });
    const before = (await contactOf(s, contactId)).whatsappAccounts[0] as Record<string, unknown>;
    expect(before.lastSeenAt).toBeNull();
    const inbound = await wa.inbound(phone, 'hi, any news?');
    expect(inbound.status).toBe(200);
    const seen = (await contactOf(s, contactId)).whatsappAccounts[0] as Record<string, unknown>;
    expect(typeof seen.lastSeenAt).toBe('string');

    // The customer wrote: the window is open and free text goes through.
    const jobId = await send({ contactId }, { text: 'Thanks for writing' });
    await waitForMessage(s.http, jobId, (m) => m.status === 'sent');
    expect(taken(phone).map((m) => m.text?.body)).toEqual(['Thanks for writing']);
  });

  it('sends the template when the window is closed: the text is refused with 131047', async () => {
    const phone = '+14155550123';
    wa.closeWindow(phone);
    const before = wa.requests.length;
    const jobId = await send(
      { phoneNumber: phone },
      { text: 'Free text', template: { name: 'hello_world', language: 'en_US' } },
    );
    const sent = await waitForMessage(s.http, jobId, (m) => m.status === 'sent');
    expect(sent.deliveryAttempts).toEqual([expect.objectContaining({ status: 'sent' })]);
    const tried = wa.requests.slice(before).map((r) => ({
      type: (r.body as { type: string }).type,
      status: r.status,
    }));
    expect(tried).toEqual([
      { type: 'text', status: 400 },
      { type: 'template', status: 200 },
    ]);
    expect(taken(phone)).toEqual([
      expect.objectContaining({
        type: 'template',
        template: expect.objectContaining({ name: 'hello_world' }),
      }),
    ]);
  });

  it('bounces a number Meta refuses (131026): its record becomes blocked and later sends are suppressed', async () => {
    const phone = '+14155550124';
    wa.openWindow(phone);
    wa.setNumberState(phone, 'blocked');
    const contactId = await createContact(s, { whatsappAccounts: [{ phoneNumber: phone }] });
    const jobId = await send({ contactId });
    const bounced = await waitForMessage(s.http, jobId, (m) => m.status === 'bounced');
    expect(bounced.deliveryAttempts).toEqual([
      expect.objectContaining({ status: 'bounced', providerCode: '131026' }),
    ]);
    const record = (await contactOf(s, contactId)).whatsappAccounts[0];
    expect(record).toMatchObject({ status: 'blocked' });

    const requests = wa.requests.length;
    const again = await send({ contactId });
    const suppressed = await waitForMessage(s.http, again, (m) => m.status === 'suppressed');
    expect(suppressed.deliveryAttempts).toEqual([
      expect.objectContaining({ status: 'suppressed' }),
    ]);
    expect(wa.requests.length).toBe(requests);
  });

  it('refuses a status notification with a forged X-Hub-Signature-256 (403); nothing changes', async () => {
    const phone = '+14155550125';
    wa.openWindow(phone);
    const jobId = await send({ phoneNumber: phone });
    await waitForMessage(s.http, jobId, (m) => m.status === 'sent');
    const [m] = taken(phone);
    const body = metaJson({
      object: 'whatsapp_business_account',
      entry: [
        {
          id: wa.businessAccountId,
          changes: [
            {
              field: 'messages',
              value: {
                messaging_product: 'whatsapp',
                metadata: { phone_number_id: wa.phoneNumberId },
                statuses: [{ id: m.id, status: 'delivered', recipient_id: m.waId }],
              },
            },
          ],
        },
      ],
    });
    const forged = await fetch(callbackUrl(providerId), {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'X-Hub-Signature-256': hubSignature256('0'.repeat(32), body),
      },
      body,
    });
    expect(forged.status).toBe(403);
    expect(await forged.json()).toMatchObject({ code: 'E_FORBIDDEN' });
    const unchanged = await waitForMessage(s.http, jobId, () => true);
    expect(unchanged.status).toBe('sent');
    expect(unchanged.deliveryAttempts).toHaveLength(1);
  });

  it('defers on a 429 (130429) and sends after it', async () => {
    const phone = '+14155550126';
    wa.openWindow(phone);
    wa.failNext(1, 429, 1);
    const jobId = await send({ phoneNumber: phone });
    const sent = await waitForMessage(s.http, jobId, (m) => m.status === 'sent');
    expect(sent.deliveryAttempts.map((a) => a.status)).toEqual(['deferred', 'sent']);
    expect(sent.deliveryAttempts[0]).toMatchObject({ providerCode: '429' });
    expect(taken(phone)).toHaveLength(1);
  });

  it('defers through an outage and loses nothing when Meta returns', async () => {
    const phone = '+14155550127';
    wa.openWindow(phone);
    await wa.stop();
    const jobId = await send({ phoneNumber: phone });
    await waitForMessage(s.http, jobId, (m) => m.status === 'deferred');
    await wa.start();
    const sent = await waitForMessage(s.http, jobId, (m) => m.status === 'sent', 20_000);
    expect(sent.deliveryAttempts[0].status).toBe('deferred');
    expect(taken(phone)).toHaveLength(1);
  });

  it("keeps organizations apart: no send through another's account, no status through another's URL", async () => {
    const phone = '+14155550128';
    wa.openWindow(phone);
    const jobId = await send({ phoneNumber: phone });
    await waitForMessage(s.http, jobId, (m) => m.status === 'sent');
    const [m] = taken(phone);

    const other = await createSession(stack.app, { plan: 'pro' });
    await other.http
      .post('/api/v1/send/whatsapp', {
        to: { phoneNumber: phone },
        content: { text: 'x' },
        providerId,
      })
      .expect(404);
    // The other organization's own account at the same Meta app: its callback URL, validly
    // signed, reports org A's message delivered.
    const otherProvider = await connect(other, whatsappAccount(wa, 'other-token'));
    wa.callbackUrl = callbackUrl(otherProvider);
    try {
      expect((await wa.status(m.id, 'delivered')).status).toBe(200);
    } finally {
      wa.callbackUrl = callbackUrl(providerId);
    }
    const unchanged = await waitForMessage(s.http, jobId, () => true);
    expect(unchanged.status).toBe('sent');
    expect(unchanged.deliveryAttempts).toHaveLength(1);
    // And the other organization cannot read org A's message.
    await other.http.get(`/api/v1/user/messages/${jobId}`).expect(404);
  });

  it('answers 422 naming the field for bad input', async () => {
    const none = await s.http
      .post('/api/v1/send/whatsapp', { to: { phoneNumber: '+14155550129' }, content: {} })
      .expect(422);
    expect(JSON.stringify(none.body)).toContain('content.text');
    const bad = await s.http
      .post('/api/v1/send/whatsapp', { to: { phoneNumber: 'call me' }, content: { text: 'x' } })
      .expect(422);
    expect(JSON.stringify(bad.body)).toContain('to.phoneNumber');
  });

  it('never puts the access token or the app secret in a response, a log line or a queue payload', () => {
    expect(stack.lines.length).toBeGreaterThan(20);
    expect(stack.payloads.length).toBeGreaterThan(5);
    for (const secret of [wa.accessToken, wa.appSecret]) {
      expect(stack.lines.filter((l) => l.includes(secret))).toEqual([]);
      expect(bodies.filter((b) => b.includes(secret))).toEqual([]);
      expect(stack.payloads.filter((p) => p.includes(secret))).toEqual([]);
    }
  });
});
