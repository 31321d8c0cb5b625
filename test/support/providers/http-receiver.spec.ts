// The `http` provider receiver: it takes only what is signed the Standard Webhooks way (checked
// here against the specification's published vector), records it, answers what a test sets and
// posts signed callbacks back.
import { createServer, IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  standardWebhookHeaders,
  verifyStandardWebhook,
} from '@app/domain/channels/providers/standard-webhooks';
import { HttpReceiver } from './http-receiver';

describe(HttpReceiver.name, () => {
  let receiver: HttpReceiver;
  let hook: Server;
  let hookUrl: string;
  const received: { headers: IncomingMessage['headers']; body: string }[] = [];

  beforeAll(async () => {
    receiver = await HttpReceiver.start();
    hook = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ headers: req.headers, body: Buffer.concat(chunks).toString() });
        res.writeHead(200).end('{}');
      });
    });
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
    hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/channels/callbacks/p1`;
  });
  afterAll(async () => {
    await receiver.stop();
    hook.closeAllConnections();
    await new Promise((r) => hook.close(r));
  });

  const message = (over: Record<string, unknown> = {}) =>
    JSON.stringify({
      id: 'job-1',
      channel: 'sms',
      to: '+14155550100',
      content: { text: 'Hi' },
      statusCallbackUrl: hookUrl,
      ...over,
    });
  const post = (body: string, headers = standardWebhookHeaders(receiver.secret, body)) =>
    fetch(receiver.url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...headers },
      body,
    });

  it('checks signatures as the Standard Webhooks published vector has them', () => {
    expect(
      verifyStandardWebhook(
        'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
        {
          'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek',
          'webhook-timestamp': '1614265330',
          'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
        },
        '{"test": 2432232314}',
        { nowSeconds: 1614265330 },
      ),
    ).toBe(true);
  });

  it('takes a signed message: 202 {id}, recorded with its headers', async () => {
    const res = await post(message());
    expect(res.status).toBe(202);
    const { id } = (await res.json()) as { id: string };
    expect(id).toMatch(/^rcv_/);
    expect(receiver.message(id)).toMatchObject({
      receiverId: id,
      body: { id: 'job-1', channel: 'sms', to: '+14155550100', content: { text: 'Hi' } },
    });
  });

  it('refuses a bad signature, another secret or no signature with 401', async () => {
    const body = message();
    const before = receiver.messages.length;
    const good = standardWebhookHeaders(receiver.secret, body);
    const other = standardWebhookHeaders(`whsec_${Buffer.alloc(32, 7).toString('base64')}`, body);
    for (const headers of [
      { ...good, 'webhook-signature': 'v1,AAAA' },
      other,
      {},
      standardWebhookHeaders(receiver.secret, body, { timestamp: 1614265330 }),
    ]) {
      const res = await post(body, headers as Record<string, string>);
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ code: 'bad_signature', message: 'Invalid signature' });
    }
    expect(receiver.messages.length).toBe(before);
  });

  it('refuses a signed body missing a field with 400', async () => {
    const res = await post(message({ to: undefined }));
    expect(res.status).toBe(400);
  });

  it('answers the statuses a test sets, then 202 again', async () => {
    receiver.answerNext(1, { status: 429, headers: { 'Retry-After': '3' } });
    receiver.answerNext(1, { status: 410, body: { code: 'unknown_recipient', message: 'Gone' } });
    receiver.answerNext(1, { status: 200, body: { id: 'theirs-1' } });
    const r429 = await post(message());
    expect([r429.status, r429.headers.get('retry-after')]).toEqual([429, '3']);
    const r410 = await post(message());
    expect([r410.status, await r410.json()]).toEqual([
      410,
      { code: 'unknown_recipient', message: 'Gone' },
    ]);
    const r200 = await post(message());
    expect([r200.status, await r200.json()]).toEqual([200, { id: 'theirs-1' }]);
    expect(receiver.message('theirs-1')).toBeDefined();
    expect((await post(message())).status).toBe(202);
  });

  it('answers {} without an id when told to', async () => {
    receiver.answerIds = false;
    try {
      const res = await post(message({ id: 'job-noid' }));
      expect(await res.json()).toEqual({});
      expect(receiver.message('job-noid')).toMatchObject({ receiverId: null });
    } finally {
      receiver.answerIds = true;
    }
  });

  it('stop() refuses connections; start() serves again on the same URL', async () => {
    const url = receiver.url;
    await receiver.stop();
    await expect(post(message())).rejects.toThrow();
    await receiver.start();
    expect(receiver.url).toBe(url);
    expect((await post(message())).status).toBe(202);
  });

  it('posts signed status and inbound callbacks', async () => {
    const { id } = (await (await post(message())).json()) as { id: string };
    const sent = await receiver.postStatus(id, 'delivered', { code: 'ok' });
    expect(sent.status).toBe(200);
    const got = received.at(-1)!;
    expect(JSON.parse(got.body)).toEqual({
      type: 'message.status',
      data: { id, status: 'delivered', code: 'ok' },
    });
    const headers = got.headers as Record<string, string>;
    expect(verifyStandardWebhook(receiver.secret, headers, got.body)).toBe(true);

    await receiver.postInbound(hookUrl, { from: '+14155550123', to: '+14155550100', text: 'STOP' });
    expect(JSON.parse(received.at(-1)!.body)).toEqual({
      type: 'message.inbound',
      data: {
        id: expect.stringMatching(/^in_/),
        from: '+14155550123',
        to: '+14155550100',
        text: 'STOP',
      },
    });
  });
});
