// The FCM adapter against the loopback FCM fake: access tokens minted from the service-account key
// and cached, the v1 payload as FCM receives it, and each answer of FCM as an outcome.
import { ManualClock } from '../../../../../test/support/clock';
import { FcmFake } from '../../../../../test/support/providers/fcm-fake';
import { loadConfig } from '../../config/app-config';
import { DnsResolver } from '../../dns/resolver';
import type { ProviderAccount, ProviderMessage, PushContent } from '../provider-adapter';
import { ProviderHttp } from '../provider-http';
import { FcmAdapter } from './fcm.adapter';
import { asOrgId } from '../../common/org-id';

describe(FcmAdapter.name, () => {
  const clock = new ManualClock(new Date('2026-12-05T12:00:00Z'));
  const fake = new FcmFake({
    projectId: 'demo-app',
    now: () => clock.now().getTime(),
    rsaBits: 1024,
  });
  const https: ProviderHttp[] = [];
  const providerHttp = (allowPrivate = true) => {
    const http = new ProviderHttp(
      {
        ...loadConfig({ ENCRYPTION_KEY: Buffer.alloc(32).toString('base64') }),
        webhookAllowPrivateTargets: allowPrivate,
      },
      new DnsResolver({ dnsServers: [] }),
    );
    https.push(http);
    return http;
  };
  let adapter: FcmAdapter;
  let counter = 0;

  beforeAll(async () => {
    await fake.start();
    fake.registerToken('device-ok');
    fake.registerToken('device-gone', 'unregistered');
    fake.registerToken('device-other-project', 'valid', 'another-app');
    fake.registerToken('device-ios-apns-key-missing', 'third_party_auth_error');
  });
  beforeEach(() => {
    adapter = new FcmAdapter(providerHttp(), clock);
  });
  afterAll(async () => {
    await fake.stop();
    await Promise.all(https.map((h) => h.onModuleDestroy()));
  });

  const account = (over: Partial<ProviderAccount> = {}, f: FcmFake = fake): ProviderAccount => ({
    id: `acct-${++counter}`,
    organizationId: asOrgId('org-1'),
    channel: 'push',
    provider: 'fcm',
    settings: { apiBaseUrl: f.url },
    credentials: { serviceAccount: { ...f.serviceAccount } },
    ...over,
  });
  const message = (
    to = 'device-ok',
    content: PushContent = { title: 'Hi', body: 'There' },
  ): ProviderMessage => ({
    reference: 'job-1',
    to,
    platform: 'android',
    content,
    statusCallbackUrl: 'https://example.com/channels/callbacks/x',
  });
  const tokenRequests = () => fake.tokenRequests.length;
  /** No outcome ever carries the key or an access token. */
  const noSecrets = (outcome: unknown) => {
    const text = JSON.stringify(outcome);
    expect(text).not.toContain('PRIVATE KEY');
    for (const r of fake.tokenRequests)
      if (r.accessToken) expect(text).not.toContain(r.accessToken);
  };

  it('sends the v1 message FCM documents for the push content and returns its name', async () => {
    const outcome = await adapter.send(
      account(),
      message('device-ok', {
        title: 'Order shipped',
        body: 'It is on its way',
        imageUrl: 'https://cdn.example.com/box.png',
        data: { orderId: '42', kind: 'shipping' },
        ttlSeconds: 3600,
        collapseKey: 'order-42',
      }),
    );
    const received = fake.messages.at(-1)!;
    expect(outcome).toEqual({ kind: 'accepted', providerMessageId: received.name, status: 'sent' });
    expect(received.name).toMatch(/^projects\/demo-app\/messages\//);
    expect(received.message).toEqual({
      token: 'device-ok',
      notification: {
        title: 'Order shipped',
        body: 'It is on its way',
        image: 'https://cdn.example.com/box.png',
      },
      data: { orderId: '42', kind: 'shipping' },
      android: { ttl: '3600s', collapse_key: 'order-42' },
      apns: {
        headers: {
          'apns-expiration': String(clock.now().getTime() / 1000 + 3600),
          'apns-collapse-id': 'order-42',
        },
      },
      webpush: { headers: { TTL: '3600' } },
    });
  });

  it('sends a data-only message without notification or platform blocks', async () => {
    await adapter.send(account(), message('device-ok', { data: { sync: '1' } }));
    expect(fake.messages.at(-1)!.message).toEqual({ token: 'device-ok', data: { sync: '1' } });
  });

  it('mints the access token once and reuses it across sends, until a minute before it expires', async () => {
    const acct = account();
    const before = tokenRequests();
    for (let i = 0; i < 3; i++) expect((await adapter.send(acct, message())).kind).toBe('accepted');
    expect(tokenRequests()).toBe(before + 1);
    const granted = fake.tokenRequests.at(-1)!;
    expect(granted.clientEmail).toBe(fake.serviceAccount.client_email);

    clock.advance((3599 - 61) * 1000);
    expect((await adapter.send(acct, message())).kind).toBe('accepted');
    expect(tokenRequests()).toBe(before + 1);
    clock.advance(2000);
    expect((await adapter.send(acct, message())).kind).toBe('accepted');
    expect(tokenRequests()).toBe(before + 2);
  });

  it('shares one mint among concurrent sends of an account, and mints per account', async () => {
    const a = account();
    const b = account();
    const before = tokenRequests();
    const outcomes = await Promise.all([
      ...Array.from({ length: 5 }, () => adapter.send(a, message())),
      ...Array.from({ length: 3 }, () => adapter.send(b, message())),
    ]);
    expect(outcomes.every((o) => o.kind === 'accepted')).toBe(true);
    expect(tokenRequests()).toBe(before + 2);
  });

  it('mints again once when FCM refuses the access token (401), then sends', async () => {
    const acct = account();
    await adapter.send(acct, message());
    const before = tokenRequests();
    fake.expireAccessTokens();
    const outcome = await adapter.send(acct, message());
    expect(outcome.kind).toBe('accepted');
    expect(tokenRequests()).toBe(before + 1);
  });

  it('is unauthorized when FCM still refuses a fresh access token', async () => {
    const stale = new FcmFake({
      tokenLifetimeSeconds: 0,
      now: () => clock.now().getTime(),
      rsaBits: 1024,
    });
    await stale.start();
    try {
      stale.registerToken('device-ok');
      const outcome = await adapter.send(account({}, stale), message());
      expect(outcome).toEqual({
        kind: 'unauthorized',
        message: expect.stringContaining('FCM 401 UNAUTHENTICATED'),
      });
      expect(stale.tokenRequests).toHaveLength(2);
      noSecrets(outcome);
    } finally {
      await stale.stop();
    }
  });

  it('is unauthorized when the token endpoint refuses the key, quoting Google and not the key', async () => {
    const other = fake.createServiceAccount();
    const forged = { ...fake.serviceAccount, private_key: other.private_key };
    const outcome = await adapter.send(
      account({ credentials: { serviceAccount: forged } }),
      message(),
    );
    expect(outcome).toEqual({
      kind: 'unauthorized',
      message: 'OAuth2 token endpoint answered 400 (invalid_grant: Invalid JWT Signature.)',
    });
    noSecrets(outcome);
  });

  it('is unauthorized without a usable service-account key', async () => {
    expect(await adapter.send(account({ credentials: {} }), message())).toEqual({
      kind: 'unauthorized',
      message: 'No service-account key in the credentials',
    });
    const { private_key: _omitted, ...partial } = fake.serviceAccount;
    expect(
      await adapter.send(account({ credentials: { serviceAccount: partial } }), message()),
    ).toEqual({
      kind: 'unauthorized',
      message: 'The service-account key lacks private_key',
    });
    const broken = {
      ...fake.serviceAccount,
      private_key: '-----BEGIN PRIVATE KEY-----\nnope\n-----END PRIVATE KEY-----\n',
    };
    const outcome = await adapter.send(
      account({ credentials: { serviceAccount: broken } }),
      message(),
    );
    expect(outcome).toEqual({
      kind: 'unauthorized',
      message: 'The service-account private_key is not a valid RSA private key',
    });
  });

  it('marks an UNREGISTERED token as an invalid address (permanent)', async () => {
    const outcome = await adapter.send(account(), message('device-gone'));
    expect(outcome).toEqual({
      kind: 'rejected',
      permanent: true,
      addressEffect: 'invalid',
      code: 'UNREGISTERED',
      message: 'FCM 404 UNREGISTERED: Requested entity was not found.',
    });
  });

  it('marks an INVALID_ARGUMENT about the token as an invalid address', async () => {
    const outcome = await adapter.send(account(), message('not-a-registration-token'));
    expect(outcome).toEqual({
      kind: 'rejected',
      permanent: true,
      addressEffect: 'invalid',
      code: 'INVALID_ARGUMENT',
      message:
        'FCM 400 INVALID_ARGUMENT: The registration token is not a valid FCM registration token',
    });
  });

  it('fails a message FCM finds invalid for another reason, keeping the token', async () => {
    const content = { title: 'x', data: { n: 12 } } as unknown as PushContent;
    const outcome = await adapter.send(account(), message('device-ok', content));
    expect(outcome).toEqual({
      kind: 'rejected',
      permanent: false,
      code: 'INVALID_ARGUMENT',
      message:
        "FCM 400 INVALID_ARGUMENT: Invalid value at 'message.data[0].value' (TYPE_STRING), 12",
    });
  });

  it('is throttled on 429 QUOTA_EXCEEDED for its Retry-After, else for a minute', async () => {
    const acct = account();
    fake.failNext(1, 429, 30);
    expect(await adapter.send(acct, message())).toEqual({
      kind: 'throttled',
      retryAfterMs: 30_000,
    });
    fake.failNext(1, 429);
    expect(await adapter.send(acct, message())).toEqual({
      kind: 'throttled',
      retryAfterMs: 60_000,
    });
  });

  it('is unavailable on 503 and 500, and while FCM is unreachable', async () => {
    const acct = account();
    fake.failNext(1, 503);
    expect(await adapter.send(acct, message())).toEqual({
      kind: 'unavailable',
      message: 'FCM 503 UNAVAILABLE: The service is currently unavailable.',
    });
    fake.failNext(1, 500);
    expect(await adapter.send(acct, message())).toMatchObject({
      kind: 'unavailable',
      message: expect.stringContaining('FCM 500 INTERNAL'),
    });
    await fake.stop();
    try {
      expect(await adapter.send(acct, message())).toMatchObject({
        kind: 'unavailable',
        message: expect.stringMatching(/unreachable/),
      });
    } finally {
      await fake.start();
    }
    expect((await adapter.send(acct, message())).kind).toBe('accepted');
  });

  it('is unauthorized on SENDER_ID_MISMATCH and THIRD_PARTY_AUTH_ERROR, without minting again', async () => {
    const acct = account();
    await adapter.send(acct, message());
    const before = tokenRequests();
    expect(await adapter.send(acct, message('device-other-project'))).toEqual({
      kind: 'unauthorized',
      message: 'FCM 403 SENDER_ID_MISMATCH: SenderId mismatch',
    });
    expect(await adapter.send(acct, message('device-ios-apns-key-missing'))).toEqual({
      kind: 'unauthorized',
      message: 'FCM 401 THIRD_PARTY_AUTH_ERROR: Auth error from APNS or Web Push Service',
    });
    expect(tokenRequests()).toBe(before);
  });

  it('checks the token endpoint and the API like any provider URL (no loopback unless allowed)', async () => {
    const strict = new FcmAdapter(providerHttp(false), clock);
    const before = tokenRequests();
    const outcome = await strict.send(account(), message());
    expect(outcome).toMatchObject({
      kind: 'unavailable',
      message: expect.stringContaining('not allowed'),
    });
    expect(tokenRequests()).toBe(before);
  });

  it('takes no status callbacks: FCM posts none', () => {
    expect(adapter.verifySignature()).toBe(false);
    expect(adapter.parseStatus()).toEqual([]);
    expect(adapter.parseInbound()).toEqual([]);
  });
});
