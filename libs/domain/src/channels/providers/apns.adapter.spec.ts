import { generateKeyPairSync } from 'node:crypto';
import { ApnsFake } from '../../../../../test/support/providers/apns-fake';
import { ManualClock } from '../../../../../test/support/clock';
import type { AppConfig } from '../../config/app-config';
import { DnsResolver } from '../../dns/resolver';
import type { ProviderAccount, ProviderMessage, PushContent } from '../provider-adapter';
import { ProviderHttp } from '../provider-http';
import {
  APNS_PRODUCTION_URL,
  APNS_SANDBOX_URL,
  APNS_TOKEN_REFRESH_MS,
  ApnsAdapter,
  baseUrl,
} from './apns.adapter';
import { asOrgId } from '../../common/org-id';

const START = new Date('2025-03-01T12:00:00Z');
const MINUTE = 60_000;
let serial = 0;
const deviceToken = () => (++serial).toString(16).padStart(64, 'c');

describe(ApnsAdapter.name, () => {
  let fake: ApnsFake;
  let fakeClock: ManualClock;
  let clock: ManualClock;
  let http: ProviderHttp;
  let adapter: ApnsAdapter;

  const providerHttp = (allowPrivate: boolean) =>
    new ProviderHttp(
      { webhookAllowPrivateTargets: allowPrivate, providerTlsCa: fake.cert } as AppConfig,
      new DnsResolver({ dnsServers: [] }),
    );
  const account = (over: Partial<ProviderAccount> = {}): ProviderAccount => ({
    id: 'acct-1',
    organizationId: asOrgId('org-1'),
    channel: 'push',
    provider: 'apns',
    settings: { bundleId: fake.bundleId, environment: 'sandbox', apiBaseUrl: fake.url },
    credentials: { keyId: fake.keyId, teamId: fake.teamId, privateKey: fake.privateKey },
    ...over,
  });
  const message = (content: PushContent, to = deviceToken()): ProviderMessage => ({
    reference: 'job-1',
    to,
    platform: 'ios',
    content,
    statusCallbackUrl: 'https://mail.example.com/channels/callbacks/p1',
  });
  const alert = { title: 'Hello', body: 'World' };

  beforeAll(async () => {
    fakeClock = new ManualClock(START);
    fake = await ApnsFake.start({ bundleId: 'com.example.app', clock: fakeClock });
  });
  beforeEach(() => {
    fakeClock.set(START);
    clock = new ManualClock(START);
    http = providerHttp(true);
    adapter = new ApnsAdapter(http, clock);
  });
  afterEach(async () => {
    await adapter.onModuleDestroy();
    await http.onModuleDestroy();
  });
  afterAll(() => fake.close());

  it('sends an alert with the headers and payload APNs expects and returns its apns-id', async () => {
    const to = deviceToken();
    const outcome = await adapter.send(
      account(),
      message(
        {
          ...alert,
          data: { orderId: '42' },
          imageUrl: 'https://cdn.example.com/a.png',
          ttlSeconds: 3600,
          collapseKey: 'order-42',
        },
        to,
      ),
    );
    const got = fake.received.at(-1)!;
    expect(outcome).toEqual({ kind: 'accepted', providerMessageId: got.apnsId, status: 'sent' });
    expect(got.deviceToken).toBe(to);
    expect(got.headers).toMatchObject({
      'apns-topic': 'com.example.app',
      'apns-push-type': 'alert',
      'apns-priority': '10',
      'apns-expiration': String(START.getTime() / 1000 + 3600),
      'apns-collapse-id': 'order-42',
    });
    expect(got.headers.authorization).toMatch(/^bearer [\w-]+\.[\w-]+\.[\w-]+$/);
    expect(got.payload).toEqual({
      aps: { alert: { title: 'Hello', body: 'World' }, 'mutable-content': 1 },
      orderId: '42',
      imageUrl: 'https://cdn.example.com/a.png',
    });
  });

  it('sends a data-only push as a background notification at priority 5', async () => {
    await adapter.send(account(), message({ data: { sync: '1' }, ttlSeconds: 0 }));
    const got = fake.received.at(-1)!;
    expect(got.headers).toMatchObject({
      'apns-push-type': 'background',
      'apns-priority': '5',
      'apns-expiration': '0',
    });
    expect(got.payload).toEqual({ aps: { 'content-available': 1 }, sync: '1' });
  });

  it('refuses data that would overwrite aps without calling APNs', async () => {
    const before = fake.attempts.length;
    const outcome = await adapter.send(account(), message({ ...alert, data: { aps: 'x' } }));
    expect(outcome).toMatchObject({ kind: 'rejected', permanent: false });
    expect(fake.attempts.length).toBe(before);
  });

  it('reuses one connection and one provider token, and signs a new token after 50 minutes', async () => {
    const tokens = fake.distinctProviderTokens;
    const connections = fake.connectionsOpened;
    for (let i = 0; i < 3; i++) {
      expect((await adapter.send(account(), message(alert))).kind).toBe('accepted');
    }
    expect(fake.distinctProviderTokens).toBe(tokens + 1);
    expect(fake.connectionsOpened).toBe(connections + 1);
    const first = fake.received.at(-1)!.headers.authorization;

    clock.advance(APNS_TOKEN_REFRESH_MS - MINUTE);
    fakeClock.advance(APNS_TOKEN_REFRESH_MS - MINUTE);
    await adapter.send(account(), message(alert));
    expect(fake.received.at(-1)!.headers.authorization).toBe(first);

    clock.advance(MINUTE);
    fakeClock.advance(MINUTE);
    expect((await adapter.send(account(), message(alert))).kind).toBe('accepted');
    expect(fake.received.at(-1)!.headers.authorization).not.toBe(first);
    expect(fake.distinctProviderTokens).toBe(tokens + 2);
    expect(fake.connectionsOpened).toBe(connections + 1);
  });

  it('signs a new token when the credentials change', async () => {
    await adapter.send(account(), message(alert));
    const other = generateKeyPairSync('ec', { namedCurve: 'prime256v1' })
      .privateKey.export({ type: 'pkcs8', format: 'pem' })
      .toString();
    const outcome = await adapter.send(
      account({ credentials: { keyId: fake.keyId, teamId: fake.teamId, privateKey: other } }),
      message(alert),
    );
    expect(outcome).toEqual({
      kind: 'unauthorized',
      message: 'APNs refused the provider token (InvalidProviderToken)',
    });
  });

  it('on ExpiredProviderToken signs a new token once and sends again', async () => {
    await adapter.send(account(), message(alert));
    const first = fake.received.at(-1)!.headers.authorization;
    // APNs' clock runs ahead of ours: our 30-minute-old token is over an hour old to it.
    clock.advance(30 * MINUTE);
    fakeClock.advance(61 * MINUTE);
    const before = fake.attempts.length;
    const outcome = await adapter.send(account(), message(alert));
    expect(outcome.kind).toBe('accepted');
    expect(fake.attempts.slice(before).map((a) => a.reason ?? a.status)).toEqual([
      'ExpiredProviderToken',
      200,
    ]);
    expect(fake.received.at(-1)!.headers.authorization).not.toBe(first);
  });

  it('gives up as unauthorized when the fresh token is refused as expired too', async () => {
    fakeClock.advance(2 * 3600_000);
    const outcome = await adapter.send(account(), message(alert));
    expect(outcome).toEqual({
      kind: 'unauthorized',
      message: 'APNs refused the provider token (ExpiredProviderToken)',
    });
  });

  it('maps unregistered and bad device tokens to permanent invalid-address refusals', async () => {
    const gone = deviceToken();
    fake.unregister(gone);
    expect(await adapter.send(account(), message(alert, gone))).toMatchObject({
      kind: 'rejected',
      permanent: true,
      addressEffect: 'invalid',
      code: 'Unregistered',
    });
    const bad = deviceToken();
    fake.markBad(bad);
    expect(await adapter.send(account(), message(alert, bad))).toMatchObject({
      kind: 'rejected',
      permanent: true,
      addressEffect: 'invalid',
      code: 'BadDeviceToken',
    });
    expect(await adapter.send(account(), message(alert, 'not-hex'))).toMatchObject({
      addressEffect: 'invalid',
      code: 'BadDeviceToken',
    });
  });

  it('maps other 400 and 413 refusals to failed messages', async () => {
    const failed = { kind: 'rejected', permanent: false };
    expect(
      await adapter.send(account(), message({ ...alert, collapseKey: 'k'.repeat(65) })),
    ).toMatchObject({ ...failed, code: 'BadCollapseId' });
    expect(
      await adapter.send(account(), message({ ...alert, data: { pad: 'p'.repeat(4100) } })),
    ).toMatchObject({ ...failed, code: 'PayloadTooLarge' });
    const wrongApp = account({
      settings: { bundleId: 'com.example.other', apiBaseUrl: fake.url },
    });
    expect(await adapter.send(wrongApp, message(alert))).toMatchObject({
      ...failed,
      code: 'TopicDisallowed',
    });
  });

  it('maps missing or unusable credentials to unauthorized without calling APNs', async () => {
    const before = fake.attempts.length;
    expect(
      (await adapter.send(account({ credentials: { keyId: 'K' } }), message(alert))).kind,
    ).toBe('unauthorized');
    // Any RSA key is the wrong kind (APNs wants P-256); a small one is quick to make.
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 })
      .privateKey.export({ type: 'pkcs8', format: 'pem' })
      .toString();
    for (const privateKey of ['not a pem', rsa]) {
      const outcome = await adapter.send(
        account({ credentials: { keyId: fake.keyId, teamId: fake.teamId, privateKey } }),
        message(alert),
      );
      expect(outcome.kind).toBe('unauthorized');
      expect(JSON.stringify(outcome)).not.toContain('PRIVATE KEY');
    }
    expect(fake.attempts.length).toBe(before);
  });

  it('answers 429 as throttled, 1 s doubling per account until a send goes through', async () => {
    fake.failNext(3, 429);
    const waits = [];
    for (let i = 0; i < 3; i++) waits.push(await adapter.send(account(), message(alert)));
    expect(waits).toEqual(
      [1000, 2000, 4000].map((retryAfterMs) => ({ kind: 'throttled', retryAfterMs })),
    );
    expect((await adapter.send(account(), message(alert))).kind).toBe('accepted');
    fake.failNext(1, 429);
    expect(await adapter.send(account(), message(alert))).toEqual({
      kind: 'throttled',
      retryAfterMs: 1000,
    });
  });

  it('maps 500 and 503 to unavailable', async () => {
    fake.failNext(1, 500);
    fake.failNext(1, 503);
    expect(await adapter.send(account(), message(alert))).toEqual({
      kind: 'unavailable',
      message: 'APNs answered 500 (InternalServerError)',
    });
    expect(await adapter.send(account(), message(alert))).toMatchObject({ kind: 'unavailable' });
  });

  it('is unavailable during an outage and reconnects when APNs is back', async () => {
    expect((await adapter.send(account(), message(alert))).kind).toBe('accepted');
    await fake.stop();
    try {
      const outcome = await adapter.send(account(), message(alert));
      expect(outcome).toMatchObject({ kind: 'unavailable' });
    } finally {
      await fake.resume();
    }
    expect((await adapter.send(account(), message(alert))).kind).toBe('accepted');
  });

  it('connects by name to the checked address (SNI and certificate on the name)', async () => {
    const byName = account({
      settings: { bundleId: fake.bundleId, apiBaseUrl: fake.url.replace('127.0.0.1', 'localhost') },
    });
    expect((await adapter.send(byName, message(alert))).kind).toBe('accepted');
  });

  it('refuses a loopback base URL unless private targets are allowed', async () => {
    const strictHttp = providerHttp(false);
    const strict = new ApnsAdapter(strictHttp, clock);
    const before = fake.attempts.length;
    const outcome = await strict.send(account(), message(alert));
    expect(outcome).toMatchObject({ kind: 'unavailable' });
    expect((outcome as { message: string }).message).toContain('not allowed');
    expect(fake.attempts.length).toBe(before);
    await strict.onModuleDestroy();
    await strictHttp.onModuleDestroy();
  });

  it('closes its connections on module destroy', async () => {
    await adapter.send(account(), message(alert));
    expect(fake.openConnections).toBeGreaterThan(0);
    await adapter.onModuleDestroy();
    const deadline = Date.now() + 2000;
    while (fake.openConnections > 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(fake.openConnections).toBe(0);
  });

  it("uses Apple's server for the environment unless apiBaseUrl is set", () => {
    expect(baseUrl({ bundleId: 'x' })).toBe(APNS_PRODUCTION_URL);
    expect(baseUrl({ environment: 'production' })).toBe('https://api.push.apple.com');
    expect(baseUrl({ environment: 'sandbox' })).toBe(APNS_SANDBOX_URL);
    expect(APNS_SANDBOX_URL).toBe('https://api.sandbox.push.apple.com');
    expect(baseUrl({ environment: 'sandbox', apiBaseUrl: 'https://apns.example.net' })).toBe(
      'https://apns.example.net',
    );
  });

  it('posts no callbacks to verify or parse', () => {
    expect(adapter.verifySignature()).toBe(false);
    expect(adapter.parseStatus()).toEqual([]);
    expect(adapter.parseInbound()).toEqual([]);
  });
});
