// POST /api/v1/send/imessage end to end (§17): the worker in this process sends through the Blooio
// fake, which posts Blooio's signed message events (X-Blooio-Signature) to the account's callback
// URL; an Apple ID not on iMessage fails with protocol `non-imessage` and bounces.
import { waitForMessage } from '../sending/support/sending';
import {
  BLOOIO_FAKE_ADDRESSES,
  BlooioFake,
  blooioSignature,
} from '../support/providers/blooio-fake';
import { createSession, Session } from '../support/session';
import {
  blooioAccount,
  ChannelStack,
  connect,
  contactOf,
  createContact,
  startChannelStack,
} from './support/accounts';

describe('POST /api/v1/send/imessage → Blooio → message events', () => {
  let blooio: BlooioFake;
  let stack: ChannelStack;
  let s: Session;
  let providerId: string;
  const bodies: string[] = [];

  beforeAll(async () => {
    blooio = await BlooioFake.start();
    stack = await startChannelStack();
    s = await createSession(stack.app, { plan: 'pro' });
    providerId = await connect(s, blooioAccount(blooio));
    blooio.webhookUrl = `${stack.base}/channels/callbacks/${providerId}`;
  });
  afterAll(async () => {
    await stack.stop();
    await blooio.stop();
  });

  async function send(to: Record<string, string>, text = 'Your table is ready') {
    const res = await s.http.post('/api/v1/send/imessage', { to, content: { text } }).expect(202);
    bodies.push(res.text);
    expect(res.body.data).toMatchObject({ channel: 'imessage', status: 'queued' });
    return res.body.data.jobId as string;
  }
  const taken = (chatId: string) => blooio.messages.filter((m) => m.chatId === chatId);

  it('sends to an Apple ID; sent, delivered and read by signed events, read as an opened engagement', async () => {
    const appleId = 'ada@icloud.example';
    const jobId = await send({ appleId: ' Ada@iCloud.example ' });
    const sent = await waitForMessage(s.http, jobId, (m) => m.status === 'sent');
    expect(sent.deliveryAttempts).toEqual([expect.objectContaining({ status: 'sent' })]);
    const [m] = taken(appleId);
    expect(m).toMatchObject({ text: 'Your table is ready', idempotencyKey: jobId });
    expect(m.fromNumber).toBe(blooio.fromNumber);

    const events = await blooio.settle(m.messageId);
    expect(events.map((e) => [e.body.event, e.status])).toEqual([
      ['message.sent', 200],
      ['message.delivered', 200],
    ]);
    await waitForMessage(s.http, jobId, (x) => x.status === 'delivered');
    expect((await blooio.event(m.messageId, 'message.read')).status).toBe(200);
    const read = await waitForMessage(s.http, jobId, (x) => x.engagementEvents.length > 0);
    expect(read.status).toBe('delivered');
    expect(read.engagementEvents).toEqual([
      expect.objectContaining({ type: 'opened', recipient: appleId }),
    ]);
    expect(read.deliveryAttempts.map((a) => a.status)).toEqual(['sent', 'delivered']);
  });

  it("sends by contactId to the contact's Apple ID", async () => {
    const contactId = await createContact(s, {
      imessageAccounts: [{ appleId: 'grace@icloud.example' }],
    });
    const jobId = await send({ contactId }, 'Hello Grace');
    await waitForMessage(s.http, jobId, (m) => m.status === 'sent');
    expect(taken('grace@icloud.example').map((m) => m.text)).toEqual(['Hello Grace']);
  });

  it('bounces an Apple ID not on iMessage through message.failed; its record becomes invalid', async () => {
    const appleId = BLOOIO_FAKE_ADDRESSES.notOnImessageAppleId;
    const contactId = await createContact(s, { imessageAccounts: [{ appleId }] });
    const jobId = await send({ contactId });
    await waitForMessage(s.http, jobId, (m) => m.status === 'sent');
    const [m] = taken(appleId);
    const [failed] = await blooio.settle(m.messageId);
    expect(failed).toMatchObject({ status: 200, body: { event: 'message.failed' } });
    expect(failed.body.protocol).toBe('non-imessage');
    const bounced = await waitForMessage(s.http, jobId, (x) => x.status === 'bounced');
    expect(bounced.deliveryAttempts.map((a) => a.status)).toEqual(['sent', 'bounced']);
    expect((await contactOf(s, contactId)).imessageAccounts[0]).toMatchObject({
      status: 'invalid',
    });

    const requests = blooio.requests;
    const again = await send({ contactId });
    await waitForMessage(s.http, again, (x) => x.status === 'suppressed');
    expect(blooio.requests).toBe(requests);
  });

  it('refuses an event with a forged X-Blooio-Signature (403); nothing changes', async () => {
    const jobId = await send({ appleId: 'forged@icloud.example' });
    await waitForMessage(s.http, jobId, (m) => m.status === 'sent');
    const [m] = taken('forged@icloud.example');
    const body = JSON.stringify({
      event: 'message.delivered',
      message_id: m.messageId,
      external_id: m.chatId,
      protocol: 'imessage',
      timestamp: Date.now(),
      delivered_at: Date.now(),
    });
    const now = Math.floor(Date.now() / 1000);
    for (const signature of [
      blooioSignature('whsec_not_the_secret', now, body),
      // The right secret, a time outside the replay window.
      blooioSignature(blooio.signingSecret, now - 3600, body),
    ]) {
      const res = await fetch(blooio.webhookUrl!, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Blooio-Signature': signature },
        body,
      });
      expect(res.status).toBe(403);
    }
    const unchanged = await waitForMessage(s.http, jobId, () => true);
    expect(unchanged.status).toBe('sent');
    expect(unchanged.deliveryAttempts).toHaveLength(1);
  });

  it('defers through an outage and loses nothing when Blooio returns', async () => {
    await blooio.stop();
    const jobId = await send({ appleId: 'outage@icloud.example' });
    await waitForMessage(s.http, jobId, (m) => m.status === 'deferred');
    await blooio.start();
    const sent = await waitForMessage(s.http, jobId, (m) => m.status === 'sent', 20_000);
    expect(sent.deliveryAttempts[0].status).toBe('deferred');
    expect(taken('outage@icloud.example')).toHaveLength(1);
  });

  it('defers on a 429 until its Retry-After, then sends', async () => {
    // When the retry may come (the account paused for the Retry-After, the message deferred to its
    // end) is proven on a fixed clock in channel-delivery.service.spec.ts; here, the wiring.
    blooio.failNext(1, 429, 1);
    const jobId = await send({ appleId: 'busy@icloud.example' });
    const sent = await waitForMessage(s.http, jobId, (m) => m.status === 'sent');
    expect(sent.deliveryAttempts.map((a) => a.status)).toEqual(['deferred', 'sent']);
    expect(taken('busy@icloud.example')).toHaveLength(1);
  });

  it('answers 422 naming the field for bad input, 404 for another organization', async () => {
    const bad = await s.http
      .post('/api/v1/send/imessage', { to: { appleId: 'not an address' }, content: { text: 'x' } })
      .expect(422);
    expect(JSON.stringify(bad.body)).toContain('to.appleId');
    const other = await createSession(stack.app, { plan: 'pro' });
    await other.http
      .post('/api/v1/send/imessage', {
        to: { appleId: 'ada@icloud.example' },
        content: { text: 'x' },
        providerId,
      })
      .expect(404);
  });

  it('never puts the API key or the signing secret in a response, a log line or a queue payload', () => {
    expect(stack.lines.length).toBeGreaterThan(20);
    expect(stack.payloads.length).toBeGreaterThan(5);
    for (const secret of [blooio.apiKey, blooio.signingSecret]) {
      expect(stack.lines.filter((l) => l.includes(secret))).toEqual([]);
      expect(bodies.filter((b) => b.includes(secret))).toEqual([]);
      expect(stack.payloads.filter((p) => p.includes(secret))).toEqual([]);
    }
  });
});
