// The Blooio adapter against the loopback Blooio fake (real HTTP through ProviderHttp) and against
// the signature example of a Blooio client library.
import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  BLOOIO_FAKE_ADDRESSES,
  BlooioFake,
  blooioSignature,
} from '../../../../../test/support/providers/blooio-fake';
import { loadConfig } from '../../config/app-config';
import { DnsResolver } from '../../dns/resolver';
import type { ProviderAccount, ProviderCallback, ProviderMessage } from '../provider-adapter';
import { ProviderHttp } from '../provider-http';
import { BlooioAdapter } from './blooio.adapter';
import { asOrgId } from '../../common/org-id';

describe(BlooioAdapter.name, () => {
  let fake: BlooioFake;
  let http: ProviderHttp;
  let adapter: BlooioAdapter;
  let hook: Server;
  let hookUrl: string;
  let last: { headers: IncomingHttpHeaders; rawBody: Buffer } | undefined;

  beforeAll(async () => {
    fake = await BlooioFake.start();
    http = new ProviderHttp(
      {
        ...loadConfig({ ENCRYPTION_KEY: Buffer.alloc(32).toString('base64') }),
        webhookAllowPrivateTargets: true,
      },
      new DnsResolver({ dnsServers: [] }),
    );
    adapter = new BlooioAdapter(http);
    hook = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        last = { headers: req.headers, rawBody: Buffer.concat(chunks) };
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
    hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/channels/callbacks/prov-1`;
    fake.webhookUrl = hookUrl;
  });
  afterAll(async () => {
    await http.onModuleDestroy();
    await fake.stop();
    hook.closeAllConnections();
    await new Promise((r) => hook.close(r));
  });

  const account = (over: Partial<ProviderAccount> = {}): ProviderAccount => ({
    id: 'prov-1',
    organizationId: asOrgId('org-1'),
    channel: 'imessage',
    provider: 'blooio',
    settings: { apiBaseUrl: fake.baseUrl },
    credentials: { apiKey: fake.apiKey, signingSecret: fake.signingSecret },
    ...over,
  });
  let n = 0;
  const message = (
    to = '+15551234567',
    content: ProviderMessage['content'] = { text: 'Hello from us' },
  ): ProviderMessage => ({
    reference: `job-${++n}`,
    to,
    content,
    statusCallbackUrl: hookUrl,
  });
  const callbackFromHook = (): ProviderCallback => ({
    url: hookUrl,
    method: 'POST',
    headers: Object.fromEntries(
      Object.entries(last!.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : v]),
    ),
    rawBody: last!.rawBody,
  });
  const accepted = async (to?: string) =>
    ((await adapter.send(account(), message(to))) as { providerMessageId: string })
      .providerMessageId;

  describe('send', () => {
    it('202 → accepted with the message id; the request is what Blooio takes', async () => {
      const outcome = await adapter.send(
        account({ settings: { apiBaseUrl: fake.baseUrl, fromNumber: fake.fromNumber } }),
        message('someone@icloud.com', { text: 'Hi', mediaUrls: ['https://cdn.example/a.png'] }),
      );
      expect(outcome).toEqual({
        kind: 'accepted',
        providerMessageId: expect.stringMatching(/^msg_/),
        status: 'sent',
      });
      const got = fake.messages.at(-1)!;
      expect(got.chatId).toBe('someone@icloud.com');
      expect(got.body).toEqual({ text: 'Hi', attachments: ['https://cdn.example/a.png'] });
      expect(got.headers['x-from-number']).toBe(fake.fromNumber);
      expect(got.idempotencyKey).toBe(`job-${n}`);
    });

    it('a retry of the same job gets the message Blooio already queued', async () => {
      const msg = message();
      const first = await adapter.send(account(), msg);
      const before = fake.messages.length;
      expect(await adapter.send(account(), msg)).toEqual(first);
      expect(fake.messages.length).toBe(before);
    });

    it('an address that is neither E.164 nor an Apple ID → rejected permanent, invalid, no request', async () => {
      const before = fake.requests;
      expect(await adapter.send(account(), message('0612345678'))).toMatchObject({
        kind: 'rejected',
        permanent: true,
        addressEffect: 'invalid',
        code: 'invalid_address',
      });
      expect(fake.requests).toBe(before);
    });

    it('401 → unauthorized, without the key in the message', async () => {
      const key = 'bl_live_' + 'f'.repeat(32);
      const outcome = await adapter.send(
        account({ credentials: { apiKey: key, signingSecret: fake.signingSecret } }),
        message(),
      );
      expect(outcome).toEqual({
        kind: 'unauthorized',
        message: 'Blooio 401: Invalid or missing API key.',
      });
      expect(JSON.stringify(outcome)).not.toContain(key);
    });

    it('a missing API key → unauthorized without a request', async () => {
      const before = fake.requests;
      const outcome = await adapter.send(
        account({ credentials: { signingSecret: fake.signingSecret } }),
        message(),
      );
      expect(outcome.kind).toBe('unauthorized');
      expect(fake.requests).toBe(before);
    });

    it("429 → throttled after Retry-After's seconds, 1 s without one", async () => {
      fake.failNext(1, 429, 5);
      expect(await adapter.send(account(), message())).toEqual({
        kind: 'throttled',
        retryAfterMs: 5000,
      });
      fake.failNext(1, 429);
      expect(await adapter.send(account(), message())).toEqual({
        kind: 'throttled',
        retryAfterMs: 1000,
      });
    });

    it.each([500, 503] as const)('%i → unavailable', async (status) => {
      fake.failNext(1, status);
      expect(await adapter.send(account(), message())).toMatchObject({ kind: 'unavailable' });
    });

    it('no answer (the API down) → unavailable', async () => {
      await fake.stop();
      try {
        const outcome = await adapter.send(account(), message());
        expect(outcome).toMatchObject({ kind: 'unavailable' });
        expect(JSON.stringify(outcome)).not.toContain(fake.apiKey);
      } finally {
        await fake.start();
      }
    });

    it.each([
      [
        'an attachment opening a new chat',
        '+15550001111',
        { text: '', mediaUrls: ['https://x.example/a.png'] },
        'attachment_first_message_not_allowed',
      ],
      ['a sender outside the pool (403)', '+15551234567', { text: 'x' }, 'http_403'],
    ])('%s → rejected, not permanent', async (_, to, content, code) => {
      const acc =
        code === 'http_403'
          ? account({ settings: { apiBaseUrl: fake.baseUrl, fromNumber: '+19998887777' } })
          : account();
      expect(await adapter.send(acc, message(to, content))).toMatchObject({
        kind: 'rejected',
        permanent: false,
        code,
      });
    });
  });

  describe('verifySignature', () => {
    it("accepts the fake's signed webhook and refuses forgeries", async () => {
      await fake.settle(await accepted());
      const genuine = callbackFromHook();
      expect(adapter.verifySignature(account(), genuine)).toBe(true);

      const tampered = Buffer.from(genuine.rawBody.toString().replace('delivered', 'read'));
      expect(adapter.verifySignature(account(), { ...genuine, rawBody: tampered })).toBe(false);
      expect(adapter.verifySignature(account(), { ...genuine, headers: {} })).toBe(false);
      expect(
        adapter.verifySignature(
          account({ credentials: { apiKey: fake.apiKey, signingSecret: 'whsec_other' } }),
          genuine,
        ),
      ).toBe(false);
      expect(adapter.verifySignature(account(), { ...genuine, method: 'GET' })).toBe(false);
      // An account without the webhook's secret yet trusts no callback, and still sends.
      const unsigned = account({ credentials: { apiKey: fake.apiKey } });
      expect(adapter.verifySignature(unsigned, genuine)).toBe(false);
      expect((await adapter.send(unsigned, message())).kind).toBe('accepted');
    });

    it('refuses a signature older than 5 minutes (replay)', () => {
      const body = '{"event":"message.delivered","message_id":"msg_1"}';
      const old = Math.floor(Date.now() / 1000) - 301;
      const callback: ProviderCallback = {
        url: hookUrl,
        method: 'POST',
        headers: { 'x-blooio-signature': blooioSignature(fake.signingSecret, old, body) },
        rawBody: Buffer.from(body),
      };
      expect(adapter.verifySignature(account(), callback)).toBe(false);
      const fresh = blooioSignature(fake.signingSecret, old + 60, body);
      expect(
        adapter.verifySignature(account(), {
          ...callback,
          headers: { 'x-blooio-signature': fresh },
        }),
      ).toBe(true);
    });
  });

  describe('parseStatus', () => {
    const status = (event: Record<string, unknown>) =>
      adapter.parseStatus({
        url: hookUrl,
        method: 'POST',
        headers: {},
        rawBody: Buffer.from(
          JSON.stringify({ message_id: 'msg_1', timestamp: 1703123458158, ...event }),
        ),
      });

    it.each([
      ['message.queued', 'imessage', 'sent'],
      ['message.sent', 'imessage', 'sent'],
      ['message.delivered', 'imessage', 'delivered'],
      ['message.delivered', 'sms', 'delivered'],
      ['message.read', 'imessage', 'read'],
      ['message.failed', 'imessage', 'failed'],
      ['message.failed', 'sms', 'failed'],
      ['message.failed', 'non-imessage', 'bounced'],
    ])('%s (protocol %s) → %s', (event, protocol, ours) => {
      expect(status({ event, protocol })).toEqual([
        expect.objectContaining({ providerMessageId: 'msg_1', status: ours }),
      ]);
    });

    it('reads nothing from an inbound message or an event it does not know', () => {
      expect(status({ event: 'message.received', text: 'hi' })).toEqual([]);
      expect(status({ event: 'typing.started' })).toEqual([]);
    });

    it("reads the fake's delivery, with the time it happened", async () => {
      await fake.settle(await accepted());
      const [update] = adapter.parseStatus(callbackFromHook());
      expect(update).toMatchObject({ status: 'delivered', occurredAt: expect.any(Date) });
      expect(adapter.parseInbound(callbackFromHook())).toEqual([]);
    });

    it('an Apple ID not on iMessage bounces, with the reason', async () => {
      const id = await accepted(BLOOIO_FAKE_ADDRESSES.notOnImessageAppleId);
      await fake.settle(id);
      expect(adapter.parseStatus(callbackFromHook())).toEqual([
        {
          providerMessageId: id,
          status: 'bounced',
          code: 'delivery_failed',
          description: `Blooio message.failed (non-imessage): ${BLOOIO_FAKE_ADDRESSES.notOnImessageAppleId} is not registered with iMessage`,
          occurredAt: expect.any(Date),
        },
      ]);
    });

    it('a number not on iMessage is delivered by SMS', async () => {
      await fake.settle(await accepted(BLOOIO_FAKE_ADDRESSES.smsOnlyNumber));
      expect(adapter.parseStatus(callbackFromHook())).toMatchObject([{ status: 'delivered' }]);
    });
  });

  describe('parseInbound', () => {
    it("reads the fake's incoming message and reports no status for it", async () => {
      await fake.inbound('+15559876543', ' Stop ');
      const callback = callbackFromHook();
      expect(adapter.verifySignature(account(), callback)).toBe(true);
      expect(adapter.parseStatus(callback)).toEqual([]);
      expect(adapter.parseInbound(callback)).toEqual([
        {
          kind: 'message',
          providerMessageId: expect.any(String),
          from: '+15559876543',
          to: fake.fromNumber,
          text: ' Stop ',
        },
      ]);
    });
  });
});
