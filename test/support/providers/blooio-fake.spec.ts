// The Blooio fake against Blooio's documentation: its signature reproduces a published example, its
// send endpoint answers and refuses as the API does, its webhooks are what Blooio posts.
import { createServer, IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BLOOIO_FAKE_ADDRESSES, BlooioFake, blooioSignature } from './blooio-fake';

describe(BlooioFake.name, () => {
  let fake: BlooioFake;
  let hook: Server;
  let hookUrl: string;
  const received: { headers: IncomingMessage['headers']; body: string }[] = [];

  beforeAll(async () => {
    fake = await BlooioFake.start();
    hook = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ headers: req.headers, body: Buffer.concat(chunks).toString() });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
    hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/channels/callbacks/p1`;
  });
  afterAll(async () => {
    await fake.stop();
    hook.closeAllConnections();
    await new Promise((r) => hook.close(r));
  });

  const send = (
    chatId: string,
    body: unknown,
    headers: Record<string, string> = {},
    auth = `Bearer ${fake.apiKey}`,
  ) =>
    fetch(`${fake.baseUrl}/chats/${encodeURIComponent(chatId)}/messages`, {
      method: 'POST',
      headers: { Authorization: auth, 'Content-Type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  const lastEvent = () => JSON.parse(received.at(-1)!.body) as Record<string, unknown>;

  it('signs as the blooio client library example does (t=1700000000, whsec_example_secret)', () => {
    const body =
      '{"event":"message.received","message_id":"m_123","text":"Hi there!","sender":"+15555550123"}';
    expect(blooioSignature('whsec_example_secret', 1700000000, body)).toBe(
      't=1700000000,v1=a031050aeb41a7ef072aefefdece109e8ca7db26d85348b8b64a911dac4e2987',
    );
  });

  describe('POST /chats/{chatId}/messages', () => {
    it('queues a message to a number or an Apple ID: 202 {message_id, status}', async () => {
      for (const to of ['+15551234567', 'someone@icloud.com']) {
        const res = await send(to, { text: 'Hello!' });
        expect(res.status).toBe(202);
        const body = (await res.json()) as { message_id: string; status: string };
        expect(body).toEqual({ message_id: expect.stringMatching(/^msg_/), status: 'queued' });
        expect(fake.message(body.message_id)).toMatchObject({ chatId: to, text: 'Hello!' });
      }
    });

    it('answers the original message again for a repeated Idempotency-Key', async () => {
      const first = (await (
        await send('+15551230001', { text: 'a' }, { 'Idempotency-Key': 'k1' })
      ).json()) as {
        message_id: string;
      };
      const before = fake.messages.length;
      const again = (await (
        await send('+15551230001', { text: 'a' }, { 'Idempotency-Key': 'k1' })
      ).json()) as {
        message_id: string;
      };
      expect(again.message_id).toBe(first.message_id);
      expect(fake.messages.length).toBe(before);
    });

    it.each([
      ['no key', ''],
      ['a wrong key', 'Bearer bl_live_wrong'],
    ])('refuses %s: 401 with the error body', async (_, auth) => {
      const res = await send('+15551234567', { text: 'x' }, {}, auth);
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({
        error: 'ApiError',
        message: 'Invalid or missing API key.',
        status: 401,
      });
    });

    it.each([
      ['a chat id that is neither E.164 nor an e-mail', '0612345678', { text: 'x' }],
      ['no text and no attachment', '+15551234567', {}],
    ])('refuses %s: 400 Invalid request parameters', async (_, to, body) => {
      const res = await send(to, body);
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({
        error: 'ApiError',
        message: 'Invalid request parameters.',
        status: 400,
      });
    });

    it('refuses an attachment opening a new conversation (attachment_first_message_not_allowed)', async () => {
      const res = await send('+15557770000', { attachments: ['https://cdn.example/a.png'] });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ code: 'attachment_first_message_not_allowed' });
      expect((await send('+15557770000', { text: 'hi' })).status).toBe(202);
      expect(
        (await send('+15557770000', { attachments: ['https://cdn.example/a.png'] })).status,
      ).toBe(202);
    });

    it('refuses a sender outside the key’s pool: 403', async () => {
      const res = await send('+15551234567', { text: 'x', from_number: '+19998887777' });
      expect(res.status).toBe(403);
      expect(((await res.json()) as { message: string }).message).toBe(
        'Action not allowed for this API key.',
      );
    });
  });

  describe('test controls', () => {
    it('answers the next requests 429 with Retry-After, then 503, then 500, then normally', async () => {
      fake.failNext(1, 429, 4);
      fake.failNext(1, 503);
      fake.failNext(1, 500);
      const r429 = await send('+15551234567', { text: 'x' });
      expect(r429.status).toBe(429);
      expect(r429.headers.get('retry-after')).toBe('4');
      expect(await r429.json()).toMatchObject({ error: 'ApiError', status: 429 });
      expect((await send('+15551234567', { text: 'x' })).status).toBe(503);
      expect((await send('+15551234567', { text: 'x' })).status).toBe(500);
      expect((await send('+15551234567', { text: 'x' })).status).toBe(202);
    });

    it('stop() refuses connections; start() serves again on the same URL', async () => {
      const url = fake.baseUrl;
      await fake.stop();
      await expect(send('+15551234567', { text: 'x' })).rejects.toThrow();
      await fake.start();
      expect(fake.baseUrl).toBe(url);
      expect((await send('+15551234567', { text: 'x' })).status).toBe(202);
    });

    it('POST /webhooks sets the URL and returns the signing secret', async () => {
      const res = await fetch(`${fake.baseUrl}/webhooks`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${fake.apiKey}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ webhook_url: hookUrl, webhook_type: 'all' }),
      });
      expect(res.status).toBe(201);
      expect(await res.json()).toEqual({
        webhook_id: expect.stringMatching(/^wh_/),
        webhook_url: hookUrl,
        webhook_type: 'all',
        signing_secret: fake.signingSecret,
      });
      expect(fake.webhookUrl).toBe(hookUrl);
    });

    it('settle() posts message.sent then message.delivered over iMessage, signed', async () => {
      fake.webhookUrl = hookUrl;
      const { message_id } = (await (await send('+15551234567', { text: 'Hi' })).json()) as {
        message_id: string;
      };
      const results = await fake.settle(message_id);
      expect(results.map((r) => r.body.event)).toEqual(['message.sent', 'message.delivered']);
      const got = received.at(-1)!;
      expect(got.headers['x-blooio-event']).toBe('message.delivered');
      expect(got.headers['x-blooio-message-id']).toBe(message_id);
      const t = Number(/^t=(\d+),/.exec(String(got.headers['x-blooio-signature']))![1]);
      expect(got.headers['x-blooio-signature']).toBe(
        blooioSignature(fake.signingSecret, t, got.body),
      );
      expect(lastEvent()).toMatchObject({
        event: 'message.delivered',
        message_id,
        external_id: '+15551234567',
        internal_id: fake.fromNumber,
        protocol: 'imessage',
        device_id: expect.any(String),
      });
      expect(fake.message(message_id)!.status).toBe('delivered');
    });

    it('a number not on iMessage falls back to SMS; an Apple ID not on iMessage fails', async () => {
      fake.webhookUrl = hookUrl;
      const sms = (await (
        await send(BLOOIO_FAKE_ADDRESSES.smsOnlyNumber, { text: 'Hi' })
      ).json()) as {
        message_id: string;
      };
      await fake.settle(sms.message_id);
      expect(lastEvent()).toMatchObject({ event: 'message.delivered', protocol: 'sms' });

      const apple = (await (
        await send(BLOOIO_FAKE_ADDRESSES.notOnImessageAppleId, { text: 'Hi' })
      ).json()) as { message_id: string };
      const [failed] = await fake.settle(apple.message_id);
      expect(failed.body).toMatchObject({
        event: 'message.failed',
        protocol: 'non-imessage',
        external_id: BLOOIO_FAKE_ADDRESSES.notOnImessageAppleId,
        error_code: expect.any(String),
        error_message: expect.stringContaining('not registered with iMessage'),
      });
      const status = await fetch(
        `${fake.baseUrl}/chats/${encodeURIComponent(BLOOIO_FAKE_ADDRESSES.notOnImessageAppleId)}/messages/${apple.message_id}/status`,
        { headers: { Authorization: `Bearer ${fake.apiKey}` } },
      );
      expect(await status.json()).toMatchObject({ status: 'failed', protocol: 'non-imessage' });
    });

    it('inbound() posts message.received with the sender and our number', async () => {
      fake.webhookUrl = hookUrl;
      await fake.inbound('+15559876543', 'Hello, I need help');
      expect(lastEvent()).toMatchObject({
        event: 'message.received',
        message_id: expect.any(String),
        external_id: '+15559876543',
        internal_id: fake.fromNumber,
        text: 'Hello, I need help',
        attachments: [],
        protocol: 'imessage',
        received_at: expect.any(Number),
      });
    });
  });
});
