// The generic `http` provider against the loopback receiver (real HTTP through ProviderHttp).
import { Test } from '@nestjs/testing';
import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HttpReceiver } from '../../../../../test/support/providers/http-receiver';
import { loadConfig } from '../../config/app-config';
import { DnsResolver } from '../../dns/resolver';
import {
  PROVIDER_CHANNELS,
  type ProviderAccount,
  type ProviderCallback,
  type ProviderMessage,
} from '../provider-adapter';
import { ProviderHttp } from '../provider-http';
import { ProviderRegistry } from '../provider-registry';
import { HTTP_PROVIDER_ADAPTERS, HttpProviderAdapter } from './http.adapter';
import { standardWebhookHeaders } from './standard-webhooks';
import { asOrgId } from '../../common/org-id';

describe(HttpProviderAdapter.name, () => {
  let receiver: HttpReceiver;
  let http: ProviderHttp;
  let adapter: HttpProviderAdapter;
  let hook: Server;
  let hookUrl: string;
  let last: { headers: IncomingHttpHeaders; rawBody: Buffer } | undefined;

  beforeAll(async () => {
    receiver = await HttpReceiver.start();
    http = new ProviderHttp(
      {
        ...loadConfig({ ENCRYPTION_KEY: Buffer.alloc(32).toString('base64') }),
        webhookAllowPrivateTargets: true,
      },
      new DnsResolver({ dnsServers: [] }),
    );
    adapter = new HttpProviderAdapter('sms', http);
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
  });
  afterAll(async () => {
    await http.onModuleDestroy();
    await receiver.stop();
    hook.closeAllConnections();
    await new Promise((r) => hook.close(r));
  });

  const account = (over: Partial<ProviderAccount> = {}): ProviderAccount => ({
    id: 'prov-1',
    organizationId: asOrgId('org-1'),
    channel: 'sms',
    provider: 'http',
    settings: { url: receiver.url },
    credentials: { secret: receiver.secret },
    ...over,
  });
  let n = 0;
  const message = (over: Partial<ProviderMessage> = {}): ProviderMessage => ({
    reference: `job-${++n}`,
    to: '+14155550100',
    content: { text: 'Hello from us' },
    statusCallbackUrl: hookUrl,
    ...over,
  });
  const callbackFromHook = (): ProviderCallback => ({
    url: hookUrl,
    method: 'POST',
    headers: Object.fromEntries(
      Object.entries(last!.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : v]),
    ),
    rawBody: last!.rawBody,
  });
  const callback = (payload: unknown): ProviderCallback => ({
    url: hookUrl,
    method: 'POST',
    headers: {},
    rawBody: Buffer.from(JSON.stringify(payload)),
  });

  describe('one adapter per channel', () => {
    it('lists an injectable adapter for every channel, each keyed apart in the registry', () => {
      const adapters = HTTP_PROVIDER_ADAPTERS.map((Adapter) => new Adapter(http));
      expect(adapters.map((a) => [a.channel, a.provider])).toEqual(
        PROVIDER_CHANNELS.map((c) => [c, 'http']),
      );
      const registry = new ProviderRegistry(adapters);
      expect(registry.adapterFor('imessage', 'http')?.channel).toBe('imessage');
    });

    it('Nest injects the HTTP client into each of them', async () => {
      const moduleRef = await Test.createTestingModule({
        providers: [{ provide: ProviderHttp, useValue: http }, ...HTTP_PROVIDER_ADAPTERS],
      }).compile();
      const telegram = moduleRef.get<HttpProviderAdapter>(HTTP_PROVIDER_ADAPTERS[2]);
      expect(telegram.channel).toBe('telegram');
      expect(
        await telegram.send(account({ channel: 'telegram' }), message({ to: '42' })),
      ).toMatchObject({ kind: 'accepted' });
      expect(receiver.messages.at(-1)!.body).toMatchObject({ channel: 'telegram', to: '42' });
    });
  });

  describe('send', () => {
    it('2xx → accepted with the id the service answered; the body is the signed protocol', async () => {
      const msg = message({ to: 'token-1', platform: 'ios', content: { title: 'T', body: 'B' } });
      const push = new HttpProviderAdapter('push', http);
      const outcome = await push.send(account({ channel: 'push' }), msg);
      const got = receiver.messages.at(-1)!;
      expect(outcome).toEqual({
        kind: 'accepted',
        providerMessageId: got.receiverId,
        status: 'sent',
      });
      expect(got.body).toEqual({
        id: msg.reference,
        channel: 'push',
        to: 'token-1',
        content: { title: 'T', body: 'B' },
        statusCallbackUrl: hookUrl,
        platform: 'ios',
      });
      expect(got.headers['webhook-id']).toBe(msg.reference);
    });

    it('2xx without an id → accepted under our reference', async () => {
      receiver.answerIds = false;
      try {
        const msg = message();
        expect(await adapter.send(account(), msg)).toEqual({
          kind: 'accepted',
          providerMessageId: msg.reference,
          status: 'sent',
        });
      } finally {
        receiver.answerIds = true;
      }
    });

    it('a wrong secret → the service answers 401 → unauthorized', async () => {
      const other = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
      const outcome = await adapter.send(account({ credentials: { secret: other } }), message());
      expect(outcome).toEqual({ kind: 'unauthorized', message: 'HTTP 401: Invalid signature' });
      expect(receiver.refused).toBeGreaterThan(0);
    });

    it('403 → unauthorized; missing secret → unauthorized without a request', async () => {
      receiver.answerNext(1, { status: 403 });
      expect(await adapter.send(account(), message())).toMatchObject({ kind: 'unauthorized' });
      const before = receiver.requests;
      expect(await adapter.send(account({ credentials: {} }), message())).toMatchObject({
        kind: 'unauthorized',
      });
      expect(receiver.requests).toBe(before);
    });

    it('410 → rejected permanent, the address invalid', async () => {
      receiver.answerNext(1, { status: 410, body: { code: 'unknown_recipient', message: 'Gone' } });
      expect(await adapter.send(account(), message())).toEqual({
        kind: 'rejected',
        permanent: true,
        addressEffect: 'invalid',
        code: 'unknown_recipient',
        message: 'HTTP 410: Gone',
      });
      receiver.answerNext(1, { status: 410 });
      expect(await adapter.send(account(), message())).toMatchObject({ code: 'gone' });
    });

    it("429 → throttled after Retry-After's seconds, 1 s without one", async () => {
      receiver.answerNext(1, { status: 429, headers: { 'Retry-After': '7' } });
      expect(await adapter.send(account(), message())).toEqual({
        kind: 'throttled',
        retryAfterMs: 7000,
      });
      receiver.answerNext(1, { status: 429 });
      expect(await adapter.send(account(), message())).toEqual({
        kind: 'throttled',
        retryAfterMs: 1000,
      });
    });

    it.each([500, 502, 503])('%i → unavailable', async (status) => {
      receiver.answerNext(1, { status });
      expect(await adapter.send(account(), message())).toMatchObject({ kind: 'unavailable' });
    });

    it('no answer → unavailable, the secret in no message', async () => {
      await receiver.stop();
      try {
        const outcome = await adapter.send(account(), message());
        expect(outcome).toMatchObject({ kind: 'unavailable' });
        expect(JSON.stringify(outcome)).not.toContain(receiver.secret.slice(6));
      } finally {
        await receiver.start();
      }
    });

    it('another 4xx → rejected, not permanent, with its code; the secret scrubbed', async () => {
      receiver.answerNext(1, {
        status: 422,
        body: { code: 'too_long', message: `text too long for ${receiver.secret}` },
      });
      expect(await adapter.send(account(), message())).toEqual({
        kind: 'rejected',
        permanent: false,
        code: 'too_long',
        message: 'HTTP 422: text too long for [redacted]',
      });
      receiver.answerNext(1, { status: 404 });
      expect(await adapter.send(account(), message())).toMatchObject({ code: 'http_404' });
    });
  });

  describe('verifySignature', () => {
    it("accepts the receiver's signed callback and refuses forgeries", async () => {
      await adapter.send(account(), message());
      await receiver.postStatus(receiver.messages.at(-1)!.receiverId!, 'delivered');
      const genuine = callbackFromHook();
      expect(adapter.verifySignature(account(), genuine)).toBe(true);
      const tampered = Buffer.from(genuine.rawBody.toString().replace('delivered', 'bounced'));
      expect(adapter.verifySignature(account(), { ...genuine, rawBody: tampered })).toBe(false);
      expect(adapter.verifySignature(account(), { ...genuine, headers: {} })).toBe(false);
      expect(adapter.verifySignature(account({ credentials: {} }), genuine)).toBe(false);
    });

    it('refuses a timestamp more than 5 minutes away', () => {
      const body = '{"type":"message.status","data":{"id":"x","status":"sent"}}';
      const old = Math.floor(Date.now() / 1000) - 301;
      const stale = { ...callback({}), rawBody: Buffer.from(body) };
      stale.headers = standardWebhookHeaders(receiver.secret, body, { timestamp: old });
      expect(adapter.verifySignature(account(), stale)).toBe(false);
      stale.headers = standardWebhookHeaders(receiver.secret, body, { timestamp: old + 10 });
      expect(adapter.verifySignature(account(), stale)).toBe(true);
    });
  });

  describe('parseStatus', () => {
    it.each(['sent', 'delivered', 'read', 'failed', 'bounced'])('%s is read as is', (status) => {
      expect(
        adapter.parseStatus(callback({ type: 'message.status', data: { id: 'm1', status } })),
      ).toEqual([{ providerMessageId: 'm1', status }]);
    });

    it('reads a list of statuses, skipping unknown ones, with codes and descriptions', () => {
      expect(
        adapter.parseStatus(
          callback({
            type: 'message.status',
            statuses: [
              { id: 'm1', status: 'bounced', code: 'unknown_user', description: 'No such user' },
              { id: 'm2', status: 'exploded' },
              { status: 'sent' },
              { id: 'm3', status: 'read' },
            ],
          }),
        ),
      ).toEqual([
        {
          providerMessageId: 'm1',
          status: 'bounced',
          code: 'unknown_user',
          description: 'No such user',
        },
        { providerMessageId: 'm3', status: 'read' },
      ]);
    });

    it("reads the receiver's callback, and no inbound message in it", async () => {
      await adapter.send(account(), message());
      const id = receiver.messages.at(-1)!.receiverId!;
      await receiver.postStatus(id, 'failed', { code: 'carrier', description: 'Refused' });
      const cb = callbackFromHook();
      expect(adapter.parseStatus(cb)).toEqual([
        { providerMessageId: id, status: 'failed', code: 'carrier', description: 'Refused' },
      ]);
      expect(adapter.parseInbound(cb)).toEqual([]);
    });
  });

  describe('parseInbound', () => {
    it("reads the receiver's inbound message and no status in it", async () => {
      await receiver.postInbound(hookUrl, {
        from: '+14155550123',
        to: '+14155550100',
        text: ' Stop ',
      });
      const cb = callbackFromHook();
      expect(adapter.verifySignature(account(), cb)).toBe(true);
      expect(adapter.parseStatus(cb)).toEqual([]);
      expect(adapter.parseInbound(cb)).toEqual([
        {
          kind: 'message',
          providerMessageId: expect.stringMatching(/^in_/),
          from: '+14155550123',
          to: '+14155550100',
          text: ' Stop ',
        },
      ]);
    });

    it('reads nothing from a body that is not the protocol', () => {
      expect(
        adapter.parseInbound(callback({ type: 'message.inbound', data: { id: 'x' } })),
      ).toEqual([]);
      expect(adapter.parseInbound({ ...callback({}), rawBody: Buffer.from('not json') })).toEqual(
        [],
      );
    });
  });
});
