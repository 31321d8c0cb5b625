// The Twilio adapter against the loopback Twilio fake (real HTTP through ProviderHttp) and against
// Twilio's own published signature example.
import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TWILIO_MAGIC, TwilioFake } from '../../../../../test/support/providers/twilio-fake';
import { loadConfig } from '../../config/app-config';
import { DnsResolver } from '../../dns/resolver';
import type { ProviderAccount, ProviderCallback, ProviderMessage } from '../provider-adapter';
import { ProviderHttp } from '../provider-http';
import { TwilioAdapter } from './twilio.adapter';
import { asOrgId } from '../../common/org-id';

describe(TwilioAdapter.name, () => {
  let fake: TwilioFake;
  let http: ProviderHttp;
  let adapter: TwilioAdapter;
  let hook: Server;
  let hookUrl: string;
  let last: { headers: IncomingHttpHeaders; rawBody: Buffer } | undefined;

  beforeAll(async () => {
    fake = await TwilioFake.start();
    http = new ProviderHttp(
      {
        ...loadConfig({ ENCRYPTION_KEY: Buffer.alloc(32).toString('base64') }),
        webhookAllowPrivateTargets: true,
      },
      new DnsResolver({ dnsServers: [] }),
    );
    adapter = new TwilioAdapter(http);
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
    await fake.stop();
    hook.closeAllConnections();
    await new Promise((r) => hook.close(r));
  });

  const account = (over: Partial<ProviderAccount> = {}): ProviderAccount => ({
    id: 'prov-1',
    organizationId: asOrgId('org-1'),
    channel: 'sms',
    provider: 'twilio',
    settings: { from: TWILIO_MAGIC.validFrom, apiBaseUrl: fake.baseUrl },
    credentials: { accountSid: fake.accountSid, authToken: fake.authToken },
    ...over,
  });
  const message = (to = '+14155550100', text = 'Hello from us'): ProviderMessage => ({
    reference: 'job-1',
    to,
    content: { text },
    statusCallbackUrl: hookUrl,
  });
  const callbackFromHook = (url = hookUrl): ProviderCallback => ({
    url,
    method: 'POST',
    headers: Object.fromEntries(
      Object.entries(last!.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : v]),
    ),
    rawBody: last!.rawBody,
  });

  describe('send', () => {
    it('201 → accepted with the sid and the segment count; the form is what Twilio takes', async () => {
      const outcome = await adapter.send(account(), message('+14155550100', 'ж'.repeat(71)));
      expect(outcome).toEqual({
        kind: 'accepted',
        providerMessageId: expect.stringMatching(/^SM[0-9a-f]{32}$/),
        status: 'sent',
        segments: 2,
      });
      const got = fake.messages.at(-1)!;
      expect(got.params).toEqual({
        To: '+14155550100',
        From: TWILIO_MAGIC.validFrom,
        Body: 'ж'.repeat(71),
        StatusCallback: hookUrl,
      });
    });

    it('sends through a Messaging Service when one is set, counting segments itself', async () => {
      const service = 'MG' + '1'.repeat(32);
      const outcome = await adapter.send(
        account({ settings: { messagingServiceSid: service, apiBaseUrl: fake.baseUrl } }),
        message('+14155550100', 'a'.repeat(200)),
      );
      expect(outcome).toMatchObject({ kind: 'accepted', segments: 2 });
      expect(fake.messages.at(-1)!.params).toEqual({
        To: '+14155550100',
        MessagingServiceSid: service,
        Body: 'a'.repeat(200),
        StatusCallback: hookUrl,
      });
    });

    it('sends MMS media URLs', async () => {
      const msg = { ...message(), content: { text: '', mediaUrls: ['https://cdn.example/a.png'] } };
      expect(await adapter.send(account(), msg)).toMatchObject({ kind: 'accepted' });
      expect(fake.messages.at(-1)!.mediaUrls).toEqual(['https://cdn.example/a.png']);
    });

    it('401 / 20003 → unauthorized, without the token in the message', async () => {
      const token = 'f'.repeat(32);
      const outcome = await adapter.send(
        account({ credentials: { accountSid: fake.accountSid, authToken: token } }),
        message(),
      );
      expect(outcome).toEqual({ kind: 'unauthorized', message: 'Twilio 20003: Authenticate' });
      expect(JSON.stringify(outcome)).not.toContain(token);
    });

    it('missing credentials → unauthorized without a request', async () => {
      const before = fake.requests;
      const outcome = await adapter.send(
        account({ credentials: { accountSid: fake.accountSid } }),
        message(),
      );
      expect(outcome.kind).toBe('unauthorized');
      expect(fake.requests).toBe(before);
    });

    it("429 → throttled after Retry-After's seconds, 1 s without one", async () => {
      fake.failNext(1, 429, 3);
      expect(await adapter.send(account(), message())).toEqual({
        kind: 'throttled',
        retryAfterMs: 3000,
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
        expect(JSON.stringify(outcome)).not.toContain(fake.authToken);
      } finally {
        await fake.start();
      }
    });

    it.each([
      ['21211 invalid number', TWILIO_MAGIC.invalidTo, '21211'],
      ['21614 not a mobile number', TWILIO_MAGIC.notMobileTo, '21614'],
    ])('%s → rejected, permanent, invalid address', async (_, to, code) => {
      expect(await adapter.send(account(), message(to))).toMatchObject({
        kind: 'rejected',
        permanent: true,
        addressEffect: 'invalid',
        code,
      });
    });

    it('21610 unsubscribed (the number texted STOP) → rejected permanent, opted_out, not invalid', async () => {
      const outcome = await adapter.send(account(), message(TWILIO_MAGIC.unsubscribedTo));
      expect(outcome).toEqual({
        kind: 'rejected',
        permanent: true,
        code: 'opted_out',
        message: 'Twilio 21610: Attempt to send to unsubscribed recipient',
      });
    });

    it.each([
      ['21408 region not enabled', undefined, TWILIO_MAGIC.noRegionPermissionTo, 'Hi', '21408'],
      ['21612 unroutable', undefined, TWILIO_MAGIC.unroutableTo, 'Hi', '21612'],
      ['21617 body too long', undefined, '+14155550100', 'a'.repeat(1601), '21617'],
      ['21603 no sender configured', {}, '+14155550100', 'Hi', '21603'],
      ['21606 sender not ours', { from: TWILIO_MAGIC.unownedFrom }, '+14155550100', 'Hi', '21606'],
    ])(
      '%s → rejected, not permanent (our request failed, no bounce)',
      async (_, settings, to, text, code) => {
        const acc = settings
          ? account({ settings: { ...settings, apiBaseUrl: fake.baseUrl } })
          : account();
        expect(await adapter.send(acc, message(to, text))).toMatchObject({
          kind: 'rejected',
          permanent: false,
          code,
        });
      },
    );
  });

  describe('verifySignature', () => {
    it("accepts Twilio's published example (Webhooks security, auth token 12345)", () => {
      const params = new URLSearchParams({
        CallSid: 'CA1234567890ABCDE',
        Caller: '+14158675310',
        Digits: '1234',
        From: '+14158675310',
        To: '+18005551212',
      });
      const callback: ProviderCallback = {
        url: 'https://mycompany.com/myapp.php?foo=1&bar=2',
        method: 'POST',
        headers: { 'x-twilio-signature': 'GvWf1cFY/Q7PnoempGyD5oXAezc=' },
        rawBody: Buffer.from(params.toString()),
      };
      const acc = account({
        credentials: { accountSid: 'AC' + '0'.repeat(32), authToken: '12345' },
      });
      expect(adapter.verifySignature(acc, callback)).toBe(true);
      params.set('Digits', '1235');
      expect(
        adapter.verifySignature(acc, { ...callback, rawBody: Buffer.from(params.toString()) }),
      ).toBe(false);
    });

    it("accepts the fake's signed status callback and refuses forgeries", async () => {
      const { providerMessageId } = (await adapter.send(account(), message())) as {
        providerMessageId: string;
      };
      await fake.deliver(providerMessageId, 'delivered');
      const genuine = callbackFromHook();
      expect(adapter.verifySignature(account(), genuine)).toBe(true);

      const tampered = Buffer.from(genuine.rawBody.toString().replace('delivered', 'undelivered'));
      expect(adapter.verifySignature(account(), { ...genuine, rawBody: tampered })).toBe(false);
      expect(adapter.verifySignature(account(), { ...genuine, url: hookUrl + '?x=1' })).toBe(false);
      expect(
        adapter.verifySignature(account(), {
          ...genuine,
          headers: { 'x-twilio-signature': 'AAAA' },
        }),
      ).toBe(false);
      expect(adapter.verifySignature(account(), { ...genuine, headers: {} })).toBe(false);
      const otherToken = account({
        credentials: { accountSid: fake.accountSid, authToken: 'x'.repeat(32) },
      });
      expect(adapter.verifySignature(otherToken, genuine)).toBe(false);
    });
  });

  describe('parseStatus', () => {
    const status = (params: Record<string, string>) =>
      adapter.parseStatus({
        url: hookUrl,
        method: 'POST',
        headers: {},
        rawBody: Buffer.from(new URLSearchParams({ MessageSid: 'SM1', ...params }).toString()),
      });

    it.each([
      ['queued', undefined, 'sent'],
      ['accepted', undefined, 'sent'],
      ['sending', undefined, 'sent'],
      ['sent', undefined, 'sent'],
      ['delivered', undefined, 'delivered'],
      ['read', undefined, 'read'],
      ['undelivered', '30003', 'failed'],
      ['undelivered', '30004', 'failed'],
      ['undelivered', '30005', 'bounced'],
      ['undelivered', '30006', 'bounced'],
      ['undelivered', '30007', 'failed'],
      ['undelivered', '30008', 'failed'],
      ['failed', '30008', 'failed'],
      ['failed', '21211', 'bounced'],
      ['failed', '21610', 'bounced'],
      ['canceled', undefined, 'failed'],
    ])('%s (ErrorCode %s) → %s', (twilioStatus, errorCode, ours) => {
      const params: Record<string, string> = { MessageStatus: twilioStatus };
      if (errorCode) params.ErrorCode = errorCode;
      const [update] = status(params);
      expect(update).toMatchObject({ providerMessageId: 'SM1', status: ours });
      if (errorCode) expect(update.code).toBe(errorCode);
    });

    it("reads the fake's status callback", async () => {
      const { providerMessageId } = (await adapter.send(account(), message())) as {
        providerMessageId: string;
      };
      await fake.deliver(providerMessageId, 'undelivered', 30006);
      expect(adapter.parseStatus(callbackFromHook())).toEqual([
        {
          providerMessageId,
          status: 'bounced',
          code: '30006',
          description: 'Twilio undelivered, error 30006',
        },
      ]);
      expect(adapter.parseInbound(callbackFromHook())).toEqual([]);
    });
  });

  describe('parseInbound', () => {
    it("reads the fake's incoming message and reports no status for it", async () => {
      await fake.inbound('+14155550123', TWILIO_MAGIC.validFrom, ' Stop ', hookUrl);
      const callback = callbackFromHook();
      expect(adapter.verifySignature(account(), callback)).toBe(true);
      expect(adapter.parseStatus(callback)).toEqual([]);
      expect(adapter.parseInbound(callback)).toEqual([
        {
          kind: 'message',
          providerMessageId: expect.stringMatching(/^SM[0-9a-f]{32}$/),
          from: '+14155550123',
          to: TWILIO_MAGIC.validFrom,
          text: ' Stop ',
        },
      ]);
    });
  });
});
