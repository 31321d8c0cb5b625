// The generic `http` provider end to end (§17), serving the sms channel: the platform generates
// its Standard Webhooks secret (shown once), POSTs each message signed to the organization's
// service (the http-receiver, which verifies the signature), reads its answer (2xx taken, 410 the
// address gone, 429 with Retry-After), and takes the service's signed status callbacks.
import { waitForMessage } from '../sending/support/sending';
import { HttpReceiver } from '../support/providers/http-receiver';
import { createSession, Session } from '../support/session';
import { ChannelStack, contactOf, createContact, startChannelStack } from './support/accounts';

const PROVIDERS = '/api/v1/user/channel-providers';

describe('the http provider: signed POSTs to the service, signed status callbacks', () => {
  let receiver: HttpReceiver;
  let stack: ChannelStack;
  let s: Session;
  let providerId: string;
  let secret: string;
  const bodies: string[] = [];

  beforeAll(async () => {
    stack = await startChannelStack();
    s = await createSession(stack.app, { plan: 'pro' });
    // The service listens first (its URL is the account's); it learns the secret the platform
    // generates, as its operator would, and listens again on the same port with it.
    const first = await HttpReceiver.start();
    const created = await s.http
      .post(PROVIDERS, {
        channel: 'sms',
        provider: 'http',
        name: 'Our SMS gateway',
        credentials: {},
        settings: { url: first.url },
      })
      .expect(201);
    providerId = created.body.data.id as string;
    secret = created.body.data.secret as string;
    const port = Number(new URL(first.url).port);
    await first.stop();
    receiver = await HttpReceiver.start({ secret, port });
  });
  afterAll(async () => {
    await stack.stop();
    await receiver.stop();
  });

  const callbackUrl = () => `${stack.base}/channels/callbacks/${providerId}`;

  async function send(to: Record<string, string>, text = 'Your code is 424242') {
    const res = await s.http.post('/api/v1/send/sms', { to, content: { text } }).expect(202);
    bodies.push(res.text);
    return res.body.data.jobId as string;
  }
  const takenFor = (to: string) => receiver.messages.filter((m) => m.body.to === to);

  it('returns the generated secret once, at creation; afterwards only hasCredentials', async () => {
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const one = await s.http.get(`${PROVIDERS}/${providerId}`).expect(200);
    expect(one.body.data).toMatchObject({ provider: 'http', hasCredentials: true });
    expect(one.body.data).not.toHaveProperty('secret');
    expect(one.body.data).not.toHaveProperty('credentials');
    const list = await s.http.get(PROVIDERS).expect(200);
    const renamed = await s.http
      .patch(`${PROVIDERS}/${providerId}`, { name: 'Gateway' })
      .expect(200);
    const key = secret.slice('whsec_'.length);
    for (const res of [one, list, renamed]) {
      expect(res.text).not.toContain(key);
      expect(res.text).not.toContain('"secret"');
    }
  });

  it('POSTs the message signed; the service verifies it; a signed delivered moves it', async () => {
    const refused = receiver.refused;
    const jobId = await send({ phoneNumber: '+1 415 555 0131' });
    const sent = await waitForMessage(s.http, jobId, (m) => m.status === 'sent');
    expect(sent.deliveryAttempts).toEqual([expect.objectContaining({ status: 'sent' })]);
    expect(receiver.refused).toBe(refused);
    const [m] = takenFor('+14155550131');
    expect(m.body).toEqual({
      id: jobId,
      channel: 'sms',
      to: '+14155550131',
      content: { text: 'Your code is 424242' },
      statusCallbackUrl: callbackUrl(),
    });
    expect(m.headers['webhook-id']).toBe(jobId);

    expect((await receiver.postStatus(m.receiverId!, 'delivered')).status).toBe(200);
    const delivered = await waitForMessage(s.http, jobId, (x) => x.status === 'delivered');
    expect(delivered.deliveryAttempts.map((a) => a.status)).toEqual(['sent', 'delivered']);
    // A late `sent` does not move it back.
    expect((await receiver.postStatus(m.receiverId!, 'sent')).status).toBe(200);
    expect((await waitForMessage(s.http, jobId, () => true)).status).toBe('delivered');
  });

  it('refuses a callback signed with another secret, or unsigned (403); nothing changes', async () => {
    const jobId = await send({ phoneNumber: '+14155550132' });
    await waitForMessage(s.http, jobId, (m) => m.status === 'sent');
    const [m] = takenFor('+14155550132');
    const payload = { type: 'message.status', data: { id: m.receiverId, status: 'delivered' } };
    const forger = new HttpReceiver();
    expect((await forger.post(callbackUrl(), payload)).status).toBe(403);
    const unsigned = await fetch(callbackUrl(), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(payload),
    });
    expect(unsigned.status).toBe(403);
    const unchanged = await waitForMessage(s.http, jobId, () => true);
    expect(unchanged.status).toBe('sent');
    expect(unchanged.deliveryAttempts).toHaveLength(1);
  });

  it("bounces on a 410 from the service; the contact's number becomes invalid and is suppressed", async () => {
    const phone = '+14155550133';
    const contactId = await createContact(s, { smsNumbers: [{ phoneNumber: phone }] });
    receiver.answerNext(1, { status: 410, body: { code: 'gone', message: 'No such subscriber' } });
    const jobId = await send({ contactId });
    const bounced = await waitForMessage(s.http, jobId, (m) => m.status === 'bounced');
    expect(bounced.deliveryAttempts).toEqual([
      expect.objectContaining({ status: 'bounced', providerCode: 'gone' }),
    ]);
    expect((await contactOf(s, contactId)).smsNumbers[0]).toMatchObject({ status: 'invalid' });

    const requests = receiver.requests;
    const again = await send({ contactId });
    await waitForMessage(s.http, again, (m) => m.status === 'suppressed');
    expect(receiver.requests).toBe(requests);
  });

  it('defers on a 429 until its Retry-After, then sends', async () => {
    // When the retry may come (the account paused for the Retry-After, the message deferred to its
    // end) is proven on a fixed clock in channel-delivery.service.spec.ts; here, the wiring.
    receiver.answerNext(1, { status: 429, headers: { 'Retry-After': '1' } });
    const jobId = await send({ phoneNumber: '+14155550134' });
    const sent = await waitForMessage(s.http, jobId, (m) => m.status === 'sent');
    expect(sent.deliveryAttempts.map((a) => a.status)).toEqual(['deferred', 'sent']);
    expect(sent.deliveryAttempts[0]).toMatchObject({ providerCode: '429' });
    expect(takenFor('+14155550134')).toHaveLength(1);
  });

  it('takes a signed inbound STOP through the service: the number opts out', async () => {
    const phone = '+14155550135';
    const contactId = await createContact(s, { smsNumbers: [{ phoneNumber: phone }] });
    const res = await receiver.postInbound(callbackUrl(), { from: phone, to: 'gw', text: 'stop' });
    expect(res.status).toBe(200);
    expect((await contactOf(s, contactId)).smsNumbers[0]).toMatchObject({ status: 'opted_out' });
  });

  it('never puts the secret in a send response, a log line or a queue payload', () => {
    const key = secret.slice('whsec_'.length);
    expect(stack.lines.length).toBeGreaterThan(20);
    expect(stack.payloads.length).toBeGreaterThan(3);
    expect(stack.lines.filter((l) => l.includes(key))).toEqual([]);
    expect(bodies.filter((b) => b.includes(key))).toEqual([]);
    expect(stack.payloads.filter((p) => p.includes(key))).toEqual([]);
  });
});
