// The WhatsApp Cloud API fake against Meta's documentation: its messages edge answers and refuses
// as the Graph API does (error body, codes, statuses), the 24-hour window and blocked numbers hold,
// and its webhooks are Meta's envelope, escaped and signed as Meta signs them.
import { createHmac } from 'node:crypto';
import { createServer, IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hubSignature256, metaJson, WhatsappFake } from './whatsapp-fake';

describe(WhatsappFake.name, () => {
  let fake: WhatsappFake;
  let hook: Server;
  let hookUrl: string;
  let hookAnswer: (query: URLSearchParams) => { status: number; body: string } = () => ({
    status: 200,
    body: '',
  });
  const received: { headers: IncomingMessage['headers']; body: string; method: string }[] = [];

  beforeAll(async () => {
    hook = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({
          headers: req.headers,
          body: Buffer.concat(chunks).toString(),
          method: req.method ?? '',
        });
        const answer = hookAnswer(new URL(req.url ?? '/', 'http://x').searchParams);
        res.writeHead(answer.status).end(answer.body);
      });
    });
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
    hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/channels/callbacks/p1`;
    fake = await WhatsappFake.start({ callbackUrl: hookUrl });
  });
  afterAll(async () => {
    await fake.stop();
    hook.closeAllConnections();
    await new Promise((r) => hook.close(r));
  });

  const customer = '+16505551234';
  const send = (
    body: unknown,
    { token = fake.accessToken, path = `/v21.0/${fake.phoneNumberId}/messages` } = {},
  ) =>
    fetch(fake.baseUrl + path, {
      method: 'POST',
      headers: {
        ...(token ? { Authorization: `Bearer ${token}` } : {}),
        'Content-Type': 'application/json',
      },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const text = (to = customer, body = 'Hello') => ({
    messaging_product: 'whatsapp',
    recipient_type: 'individual',
    to,
    type: 'text',
    text: { preview_url: false, body },
  });
  const template = (name = 'hello_world', code = 'en_US', params: string[] = []) => ({
    messaging_product: 'whatsapp',
    to: customer,
    type: 'template',
    template: {
      name,
      language: { code },
      ...(params.length
        ? {
            components: [
              { type: 'body', parameters: params.map((t) => ({ type: 'text', text: t })) },
            ],
          }
        : {}),
    },
  });
  type GraphErrorBody = {
    error: {
      message: string;
      type: string;
      code: number;
      error_data?: { messaging_product: string; details: string };
      error_subcode?: number;
      fbtrace_id: string;
    };
  };
  const graphError = async (res: Response) => (await res.json()) as GraphErrorBody;

  describe('signature', () => {
    it("escapes beyond ASCII as Meta's payload validation documents (äöå → \\u00e4\\u00f6\\u00e5)", () => {
      expect(metaJson({ body: 'äöå €' })).toBe('{"body":"\\u00e4\\u00f6\\u00e5 \\u20ac"}');
      expect(JSON.parse(metaJson({ body: 'äöå €' }))).toEqual({ body: 'äöå €' });
    });

    it('is sha256= and the lower-case hex HMAC-SHA256 (the published X-Hub-Signature-256 vector)', () => {
      // GitHub's documented vector for the same header scheme (secret, payload, signature).
      expect(hubSignature256("It's a Secret to Everybody", 'Hello, World!')).toBe(
        'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17',
      );
    });
  });

  describe('POST /{version}/{phone-number-id}/messages', () => {
    it("sends a text inside the customer's window: Meta's answer with the wamid", async () => {
      fake.openWindow(customer);
      const res = await send({ ...text(), biz_opaque_callback_data: 'job-1' });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { messages: { id: string }[] };
      expect(body).toEqual({
        messaging_product: 'whatsapp',
        contacts: [{ input: customer, wa_id: '16505551234' }],
        messages: [{ id: expect.stringMatching(/^wamid\.[A-Za-z0-9+/=]+$/) }],
      });
      expect(fake.message(body.messages[0].id)).toMatchObject({
        waId: '16505551234',
        type: 'text',
        text: { body: 'Hello', preview_url: false },
        opaque: 'job-1',
        status: 'accepted',
      });
    });

    it("sends Meta's hello_world template to a number whose window is closed: message_status accepted", async () => {
      fake.closeWindow(customer);
      const res = await send(template());
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({
        messages: [{ id: expect.stringMatching(/^wamid\./), message_status: 'accepted' }],
      });
    });

    it('fills a template with its body parameters', async () => {
      fake.addTemplate({ name: 'order_shipped', language: 'fr', bodyParameters: 2 });
      const res = await send(template('order_shipped', 'fr', ['Ana', '#42']));
      expect(res.status).toBe(200);
      expect(fake.messages.at(-1)!.template).toEqual({
        name: 'order_shipped',
        language: 'fr',
        parameters: ['Ana', '#42'],
      });
    });

    it.each([
      ['no token', ''],
      ['a wrong token', 'EAAwrong'],
    ])('refuses %s: 401, code 190, no error_data', async (_, token) => {
      const res = await send(template(), { token });
      expect(res.status).toBe(401);
      expect(await graphError(res)).toEqual({
        error: {
          message: 'Invalid OAuth access token - Cannot parse access token',
          type: 'OAuthException',
          code: 190,
          fbtrace_id: expect.any(String),
        },
      });
    });

    it("refuses another phone number id: Graph's unsupported post request (100, subcode 33)", async () => {
      const res = await send(template(), { path: '/v21.0/999/messages' });
      expect(res.status).toBe(400);
      const { error } = await graphError(res);
      expect(error).toMatchObject({ code: 100, error_subcode: 33, type: 'GraphMethodException' });
      expect(error.message).toMatch(
        /^Unsupported post request\. Object with ID '999' does not exist/,
      );
    });

    it.each([
      [
        'messaging_product missing',
        { ...text(), messaging_product: undefined },
        100,
        /messaging_product is required/,
      ],
      [
        'messaging_product not whatsapp',
        { ...text(), messaging_product: 'sms' },
        100,
        /must be one of \{WHATSAPP\}/,
      ],
      ['recipient_type unknown', { ...text(), recipient_type: 'broadcast' }, 100, /recipient_type/],
      ['to missing', { ...text(), to: undefined }, 100, /parameter to is required/],
      ['to not a phone number', text('hello'), 100, /Invalid parameter/],
      ['text.body missing', { ...text(), text: {} }, 100, /text\['body'\] is required/],
      [
        'text.body over 4096 characters',
        text(customer, 'a'.repeat(4097)),
        100,
        /Invalid parameter/,
      ],
      ['an unknown type', { ...text(), type: 'fax' }, 100, /Param type must be one of/],
      [
        'a template without a name',
        { ...template(), template: { language: { code: 'en_US' } } },
        100,
        /template\['name'\] is required/,
      ],
      [
        'a template without a language',
        { ...template(), template: { name: 'hello_world' } },
        100,
        /\['language'\]\['code'\] is required/,
      ],
      [
        'a template parameter count that does not match',
        template('hello_world', 'en_US', ['x']),
        132000,
        /Number of parameters/,
      ],
    ])('refuses %s: 400 with its code', async (_, body, code, message) => {
      fake.openWindow(customer);
      const before = fake.messages.length;
      const res = await send(body);
      expect(res.status).toBe(400);
      const { error } = await graphError(res);
      expect(error).toMatchObject({
        code,
        type: 'OAuthException',
        error_data: { messaging_product: 'whatsapp', details: expect.any(String) },
        fbtrace_id: expect.any(String),
      });
      expect(error.message).toMatch(message);
      expect(error).not.toHaveProperty('error_subcode');
      expect(fake.messages.length).toBe(before);
    });

    it('reads no parameters from a body that is not JSON: messaging_product is required', async () => {
      const res = await fetch(`${fake.baseUrl}/v21.0/${fake.phoneNumberId}/messages`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${fake.accessToken}`, 'Content-Type': 'text/plain' },
        body: 'to=1',
      });
      expect(res.status).toBe(400);
      expect((await graphError(res)).error.message).toBe(
        '(#100) The parameter messaging_product is required.',
      );
    });

    it('refuses a template that does not exist in that language: 404, code 132001', async () => {
      const res = await send(template('hello_world', 'pt_BR'));
      expect(res.status).toBe(404);
      const { error } = await graphError(res);
      expect(error).toMatchObject({
        code: 132001,
        message: '(#132001) Template name does not exist in the translation',
        error_data: { details: 'template name (hello_world) does not exist in pt_BR' },
      });
    });

    it('refuses free text outside the 24-hour window (131047) and takes a template there', async () => {
      const number = '+447700900123';
      fake.openWindow(number, new Date(Date.now() - 25 * 60 * 60 * 1000));
      const res = await send(text(number));
      expect(res.status).toBe(400);
      const { error } = await graphError(res);
      expect(error).toMatchObject({ code: 131047, message: '(#131047) Re-engagement message' });
      expect(error.error_data!.details).toMatch(/more than 24 hours have passed/);
      expect((await send({ ...template(), to: number })).status).toBe(200);
      fake.openWindow(number, new Date(Date.now() - 23 * 60 * 60 * 1000));
      expect((await send(text(number))).status).toBe(200);
    });

    it('refuses any message to a blocked number: 131026 Message Undeliverable', async () => {
      const number = '+16505550000';
      fake.setNumberState(number, 'blocked');
      for (const body of [text(number), { ...template(), to: number }]) {
        fake.openWindow(number);
        const res = await send(body);
        expect(res.status).toBe(400);
        expect((await graphError(res)).error).toMatchObject({
          code: 131026,
          message: '(#131026) Message Undeliverable.',
        });
      }
      fake.setNumberState(number, 'reachable');
      expect((await send(text(number))).status).toBe(200);
    });
  });

  describe('test controls', () => {
    it('fails the next sends: 429 (130429) with Retry-After, 131056, 503, 500, then answers', async () => {
      fake.failNext(1, 429, 7);
      fake.failNext(1, 131056);
      fake.failNext(1, 503);
      fake.failNext(1, 500);
      const throttled = await send(template());
      expect(throttled.status).toBe(429);
      expect(throttled.headers.get('retry-after')).toBe('7');
      expect((await graphError(throttled)).error).toMatchObject({
        code: 130429,
        message: '(#130429) Rate limit hit',
      });
      const pair = await send(template());
      expect(pair.status).toBe(429);
      expect(pair.headers.get('retry-after')).toBeNull();
      expect((await graphError(pair)).error.code).toBe(131056);
      const down = await send(template());
      expect([down.status, (await graphError(down)).error.code]).toEqual([503, 131016]);
      const broken = await send(template());
      expect([broken.status, (await graphError(broken)).error.code]).toEqual([500, 131000]);
      expect((await send(template())).status).toBe(200);
    });

    it('stop() refuses connections; start() serves again on the same URL', async () => {
      const url = fake.baseUrl;
      await fake.stop();
      await expect(send(template())).rejects.toThrow();
      await fake.start();
      expect(fake.baseUrl).toBe(url);
      expect((await send(template())).status).toBe(200);
    });

    it('records every request, without the token', async () => {
      await send(template(), { token: 'EAAnope' });
      const last = fake.requests.at(-1)!;
      expect(last).toEqual({
        method: 'POST',
        path: `/v21.0/${fake.phoneNumberId}/messages`,
        authorized: false,
        body: template(),
        status: 401,
      });
      expect(JSON.stringify(fake.requests)).not.toContain(fake.accessToken);
    });
  });

  describe('webhooks', () => {
    const sendOne = async (body: unknown) =>
      ((await (await send(body)).json()) as { messages: { id: string }[] }).messages[0].id;

    it("posts a status notification in Meta's envelope, signed over the exact body", async () => {
      fake.openWindow(customer);
      const id = await sendOne({ ...text(), biz_opaque_callback_data: 'job-9' });
      const result = await fake.status(id, 'delivered');
      expect(result.status).toBe(200);
      const got = received.at(-1)!;
      expect(got.method).toBe('POST');
      expect(got.headers['content-type']).toBe('application/json');
      expect(got.headers['x-hub-signature-256']).toBe(hubSignature256(fake.appSecret, got.body));
      expect(got.headers['x-hub-signature']).toBe(
        'sha1=' + createHmac('sha1', fake.appSecret).update(got.body).digest('hex'),
      );
      expect(JSON.parse(got.body)).toEqual({
        object: 'whatsapp_business_account',
        entry: [
          {
            id: fake.businessAccountId,
            changes: [
              {
                value: {
                  messaging_product: 'whatsapp',
                  metadata: {
                    display_phone_number: fake.displayPhoneNumber,
                    phone_number_id: fake.phoneNumberId,
                  },
                  statuses: [
                    {
                      id,
                      status: 'delivered',
                      timestamp: expect.stringMatching(/^\d{10}$/),
                      recipient_id: '16505551234',
                      biz_opaque_callback_data: 'job-9',
                      pricing: {
                        billable: false,
                        pricing_model: 'PMP',
                        type: 'free_customer_service',
                        category: 'service',
                      },
                    },
                  ],
                },
                field: 'messages',
              },
            ],
          },
        ],
      });
      await fake.status(id, 'read');
      const read = JSON.parse(received.at(-1)!.body);
      expect(read.entry[0].changes[0].value.statuses[0]).not.toHaveProperty('pricing');
      expect(fake.message(id)!.status).toBe('read');
    });

    it('a failed status carries errors[] with the code (131026 by default)', async () => {
      const id = await sendOne(template());
      await fake.status(id, 'failed');
      const [status] = JSON.parse(received.at(-1)!.body).entry[0].changes[0].value.statuses;
      expect(status).toMatchObject({
        status: 'failed',
        errors: [
          {
            code: 131026,
            title: 'Message Undeliverable.',
            message: 'Message Undeliverable.',
            error_data: { details: expect.any(String) },
            href: expect.stringContaining('error-codes'),
          },
        ],
      });
      expect(status).not.toHaveProperty('pricing');
    });

    it('posts an inbound text, escaped and signed, and it opens the sender’s window', async () => {
      const from = '+16315551181';
      fake.closeWindow(from);
      expect((await send(text(from))).status).toBe(400);
      const result = await fake.inbound(from, 'äöå stop');
      const got = received.at(-1)!;
      expect(got.body).toContain('"body":"\\u00e4\\u00f6\\u00e5 stop"');
      expect(got.body).toBe(result.rawBody);
      expect(got.headers['x-hub-signature-256']).toBe(hubSignature256(fake.appSecret, got.body));
      expect(JSON.parse(got.body).entry[0].changes[0].value).toEqual({
        messaging_product: 'whatsapp',
        metadata: {
          display_phone_number: fake.displayPhoneNumber,
          phone_number_id: fake.phoneNumberId,
        },
        contacts: [{ profile: { name: 'Test Customer' }, wa_id: '16315551181' }],
        messages: [
          {
            from: '16315551181',
            id: result.id,
            timestamp: expect.stringMatching(/^\d{10}$/),
            type: 'text',
            text: { body: 'äöå stop' },
          },
        ],
      });
      expect(fake.windowOpen(from)).toBe(true);
      expect((await send(text(from))).status).toBe(200);
    });

    it.each([
      ['button', { type: 'button', button: { payload: 'Yes', text: 'Yes' } }],
      [
        'button_reply',
        {
          type: 'interactive',
          interactive: { type: 'button_reply', button_reply: { id: 'reply-1', title: 'Yes' } },
        },
      ],
      [
        'list_reply',
        {
          type: 'interactive',
          interactive: { type: 'list_reply', list_reply: { id: 'reply-1', title: 'Yes' } },
        },
      ],
    ] as const)('posts a %s reply in its own shape', async (kind, shape) => {
      await fake.inbound('+16315551181', 'Yes', kind);
      const [message] = JSON.parse(received.at(-1)!.body).entry[0].changes[0].value.messages;
      expect(message).toMatchObject(shape);
    });

    it('verifies the callback URL: subscribed only when the challenge comes back', async () => {
      hookAnswer = (q) =>
        q.get('hub.mode') === 'subscribe' && q.get('hub.verify_token') === 'meatyhamhock'
          ? { status: 200, body: q.get('hub.challenge') ?? '' }
          : { status: 403, body: '' };
      try {
        const ok = await fake.verifyCallback('meatyhamhock');
        expect(ok).toMatchObject({ verified: true, status: 200 });
        expect(ok.challenge).toMatch(/^\d+$/);
        expect(received.at(-1)!.method).toBe('GET');
        expect(await fake.verifyCallback('wrong')).toMatchObject({ verified: false, status: 403 });
        hookAnswer = () => ({ status: 200, body: 'not the challenge' });
        expect((await fake.verifyCallback('meatyhamhock')).verified).toBe(false);
      } finally {
        hookAnswer = () => ({ status: 200, body: '' });
      }
    });
  });
});
