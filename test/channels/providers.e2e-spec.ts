// Provider accounts (§17). Each provider's account is created, listed, read,
// changed and deleted; its fields are checked per provider; credentials are write-only (never in a
// response or a log line, encrypted at rest); one default per channel; a test send goes through the
// registry's adapter (here a recording one) and refused credentials make the account `failing`;
// another organization sees none of it; scopes and private targets are enforced; the admin CLI
// does the same without HTTP.
import { INestApplication } from '@nestjs/common';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import request from 'supertest';
import { DataSource } from 'typeorm';
import {
  APP_CONFIG,
  ChannelProviderService,
  loadConfig,
  PROVIDER_ADAPTERS,
  setLogSink,
  ValidationFailedError,
} from '@app/domain';
import { readCredentials } from '../../apps/api/src/admin/providers.command';
import { runAdmin } from '../../apps/api/src/cli';
import { createTestApp } from '../support/app';
import { client, Client, createKey, createSession, NIL_UUID, Session } from '../support/session';
import { providerSecrets, RecordingAdapter, secretStrings, serviceAccount } from './support';

const BASE = '/api/v1/user/channel-providers';

interface ProviderJson {
  id: string;
  channel: string;
  provider: string;
  name: string;
  settings: Record<string, unknown>;
  hasCredentials: true;
  status: 'active' | 'failing' | 'disabled';
  isDefault: boolean;
  maxPerSecond: number;
  createdAt: string;
  updatedAt: string;
  secret?: string;
}

describe('Channel providers', () => {
  const secrets = providerSecrets();
  const twilio = new RecordingAdapter('sms', 'twilio');
  const fcm = new RecordingAdapter('push', 'fcm');
  const apns = new RecordingAdapter('push', 'apns');
  const lines: string[] = [];
  /** Every response body of the file, to grep for credentials at the end. */
  const bodies: string[] = [];
  let app: INestApplication;
  let ds: DataSource;
  let a: Session;
  let b: Session;
  let ids: Record<string, string>;

  /** A client whose every response body is kept in `bodies`. */
  function recorded(c: Client): Client {
    const keep = (t: request.Test) => t.expect((res) => void bodies.push(res.text));
    return {
      get: (p) => keep(c.get(p)),
      post: (p, body) => keep(c.post(p, body)),
      patch: (p, body) => keep(c.patch(p, body)),
      put: (p, body) => keep(c.put(p, body)),
      delete: (p, body) => keep(c.delete(p, body)),
    };
  }

  beforeAll(async () => {
    setLogSink((line) => lines.push(line));
    app = await createTestApp({
      logLevel: 'debug',
      override: (bld) => bld.overrideProvider(PROVIDER_ADAPTERS).useValue([twilio, fcm, apns]),
    });
    ds = app.get(DataSource);
    a = await createSession(app);
    b = await createSession(app);
    a.http = recorded(a.http);
    b.http = recorded(b.http);
  });
  afterAll(async () => {
    await app.close();
    setLogSink((line) => process.stdout.write(line + '\n'));
  });

  const create = async (body: object, status = 201): Promise<ProviderJson> =>
    (await a.http.post(BASE, body).expect(status)).body.data;
  const get = async (id: string): Promise<ProviderJson> =>
    (await a.http.get(`${BASE}/${id}`).expect(200)).body.data;
  const fieldsOf = (res: request.Response) =>
    (res.body.errors as { field: string; rule: string }[]).map((e) => `${e.field}:${e.rule}`);

  const twilioBody = () => ({
    channel: 'sms',
    provider: 'twilio',
    name: 'Twilio US',
    credentials: secrets.twilio,
    settings: { from: '+14155550100' },
  });

  it('creates an account of each provider with its defaults; credentials are write-only', async () => {
    const sms = await create(twilioBody());
    expect(sms).toEqual({
      id: expect.any(String),
      channel: 'sms',
      provider: 'twilio',
      name: 'Twilio US',
      settings: { from: '+14155550100' },
      hasCredentials: true,
      status: 'active',
      isDefault: true,
      maxPerSecond: 1,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const android = await create({
      channel: 'push',
      provider: 'fcm',
      name: 'Android',
      credentials: { serviceAccount: serviceAccount(secrets) },
    });
    expect(android).toMatchObject({ isDefault: true, maxPerSecond: 600, settings: {} });
    const ios = await create({
      channel: 'push',
      provider: 'apns',
      name: 'iOS',
      credentials: { keyId: 'ABC123DEFG', teamId: 'DEF123GHIJ', privateKey: secrets.ecPem },
      settings: { bundleId: 'com.example.app' },
      maxPerSecond: 500,
    });
    // The channel's second account is not its default; APNs' environment defaults to production.
    expect(ios).toMatchObject({
      isDefault: false,
      maxPerSecond: 500,
      settings: { bundleId: 'com.example.app', environment: 'production' },
    });
    const whatsapp = await create({
      channel: 'whatsapp',
      provider: 'whatsapp-cloud',
      name: 'WhatsApp',
      credentials: secrets.whatsapp,
      settings: { phoneNumberId: '106540352242922', verifyToken: 'a-verify-token' },
    });
    expect(whatsapp).toMatchObject({ isDefault: true, maxPerSecond: 80 });
    const telegram = await create({
      channel: 'telegram',
      provider: 'telegram-bot',
      name: 'Bot',
      credentials: { botToken: secrets.botToken },
      settings: { botUsername: 'example_shop_bot' },
    });
    expect(telegram).toMatchObject({ isDefault: true, maxPerSecond: 30 });
    const imessage = await create({
      channel: 'imessage',
      provider: 'http',
      name: 'Relay',
      credentials: { secret: secrets.httpSecret },
      settings: { url: 'https://relay.example.com/messages' },
    });
    expect(imessage.secret).toBeUndefined();
    ids = {
      sms: sms.id,
      fcm: android.id,
      apns: ios.id,
      whatsapp: whatsapp.id,
      telegram: telegram.id,
      imessage: imessage.id,
    };

    for (const id of Object.values(ids)) {
      const read = await get(id);
      expect(read.hasCredentials).toBe(true);
      expect(Object.keys(read)).not.toContain('credentials');
    }
    // At rest: one field-encrypted JSON object, none of its values in clear.
    const [row] = await ds.query(`SELECT credentials FROM channel_providers WHERE id = $1`, [
      sms.id,
    ]);
    expect(row.credentials).toMatch(/^v1:/);
    expect(row.credentials).not.toContain(secrets.twilio.authToken);
    expect(row.credentials).not.toContain(secrets.twilio.accountSid);
    const account = await app.get(ChannelProviderService).account(a.org.id, sms.id);
    expect(account.credentials).toEqual(secrets.twilio);
  });

  it('generates the http provider’s signing secret when none is given, and shows it once', async () => {
    const created = await create({
      channel: 'sms',
      provider: 'http',
      name: 'Gateway',
      credentials: {},
      settings: { url: 'https://sms-gateway.example.com/send' },
    });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(created.isDefault).toBe(false);
    const read = await get(created.id);
    expect(read.secret).toBeUndefined();
    const listed = (await a.http.get(`${BASE}?channel=sms`).expect(200)).body.data;
    expect(JSON.stringify(listed)).not.toContain(created.secret);
    await a.http.delete(`${BASE}/${created.id}`).expect(200);
  });

  it('lists page by page, filtered by channel', async () => {
    const all = await a.http.get(`${BASE}?limit=2`).expect(200);
    expect(all.body.data).toHaveLength(2);
    expect(all.body.meta).toMatchObject({ total: 6 });
    const push = await a.http.get(`${BASE}?channel=push`).expect(200);
    expect(push.body.data.map((p: ProviderJson) => p.provider).sort()).toEqual(['apns', 'fcm']);
    expect(push.body.meta).toMatchObject({ total: 2 });
    const bad = await a.http.get(`${BASE}?channel=fax`).expect(422);
    expect(fieldsOf(bad)).toEqual(['channel:enum']);
  });

  it('refuses each provider’s wrong fields with 422 naming the field', async () => {
    const cases: [object, string[]][] = [
      [
        { ...twilioBody(), credentials: { ...secrets.twilio, accountSid: 'AC123' } },
        ['credentials.accountSid:type'],
      ],
      [
        { ...twilioBody(), credentials: { accountSid: secrets.twilio.accountSid } },
        ['credentials.authToken:required'],
      ],
      [
        { ...twilioBody(), credentials: { ...secrets.twilio, password: 'x' } },
        ['credentials.password:unknown'],
      ],
      [{ ...twilioBody(), settings: {} }, ['settings.from:required']],
      [
        {
          ...twilioBody(),
          settings: { from: '+14155550100', messagingServiceSid: `MG${'a'.repeat(32)}` },
        },
        ['settings.from:type'],
      ],
      [
        { ...twilioBody(), settings: { messagingServiceSid: 'MG1' } },
        ['settings.messagingServiceSid:type'],
      ],
      [{ ...twilioBody(), settings: { from: '0044 20' } }, ['settings.from:type']],
      [{ ...twilioBody(), channel: 'push' }, ['provider:enum']],
      [{ ...twilioBody(), provider: 'nexmo' }, ['provider:enum']],
      [{ ...twilioBody(), credentials: 'AC:token' }, ['credentials:type']],
      [{ ...twilioBody(), extra: 1 }, ['extra:unknown']],
      [{ ...twilioBody(), maxPerSecond: 0 }, ['maxPerSecond:min']],
      [{ ...twilioBody(), name: '   ' }, ['name:type']],
      [
        {
          channel: 'push',
          provider: 'fcm',
          name: 'x',
          credentials: {
            serviceAccount: serviceAccount(secrets, {
              type: 'authorized_user',
              private_key: secrets.ecPem,
              token_uri: 'http://oauth2.googleapis.com/token',
            }),
          },
        },
        [
          'credentials.serviceAccount.type:type',
          'credentials.serviceAccount.private_key:type',
          'credentials.serviceAccount.token_uri:url',
        ],
      ],
      [
        { channel: 'push', provider: 'fcm', name: 'x', credentials: { serviceAccount: '{}' } },
        ['credentials.serviceAccount:type'],
      ],
      [
        {
          channel: 'push',
          provider: 'apns',
          name: 'x',
          credentials: { keyId: 'ABC123DEF', teamId: 'DEF123GHIJ', privateKey: secrets.rsaPem },
          settings: { bundleId: 'app', environment: 'staging' },
        },
        [
          'credentials.keyId:type',
          'credentials.privateKey:type',
          'settings.bundleId:type',
          'settings.environment:enum',
        ],
      ],
      [
        {
          channel: 'telegram',
          provider: 'telegram-bot',
          name: 'x',
          credentials: { botToken: 'nope' },
          settings: { botUsername: 'shop' },
        },
        ['credentials.botToken:type', 'settings.botUsername:type'],
      ],
      [
        {
          channel: 'whatsapp',
          provider: 'whatsapp-cloud',
          name: 'x',
          credentials: {},
          settings: {},
        },
        [
          'credentials.accessToken:required',
          'credentials.appSecret:required',
          'settings.phoneNumberId:required',
        ],
      ],
      [
        {
          channel: 'sms',
          provider: 'http',
          name: 'x',
          credentials: { secret: 'short' },
          settings: { url: 'ftp://x' },
        },
        ['credentials.secret:type', 'settings.url:url'],
      ],
      [
        { ...twilioBody(), settings: { from: '+14155550100', apiBaseUrl: 'not a url' } },
        ['settings.apiBaseUrl:url'],
      ],
    ];
    for (const [body, fields] of cases) {
      const res = await a.http.post(BASE, body);
      expect({ body, status: res.status, code: res.body.code }).toEqual({
        body,
        status: 422,
        code: 'E_VALIDATION_ERROR',
      });
      expect({ body, fields: fieldsOf(res) }).toEqual({ body, fields });
    }
    const url = await a.http.post(BASE, {
      ...twilioBody(),
      settings: { from: '+14155550100', apiBaseUrl: 'x' },
    });
    expect(url.body.errors[0].message).toBe('Please enter a valid URL');
  });

  it('changes name, throughput, settings and credentials (write-only), and disables', async () => {
    const changed = (
      await a.http
        .patch(`${BASE}/${ids.sms}`, {
          name: 'Twilio main',
          maxPerSecond: 3,
          settings: { messagingServiceSid: `MG${'b'.repeat(32)}` },
        })
        .expect(200)
    ).body.data as ProviderJson;
    expect(changed).toMatchObject({
      name: 'Twilio main',
      maxPerSecond: 3,
      settings: { messagingServiceSid: `MG${'b'.repeat(32)}` },
    });
    const bad = await a.http.patch(`${BASE}/${ids.sms}`, { settings: {} }).expect(422);
    expect(fieldsOf(bad)).toEqual(['settings.from:required']);
    await a.http.patch(`${BASE}/${ids.sms}`, { name: null }).expect(422);
    await a.http.patch(`${BASE}/${ids.sms}`, { status: 'failing' }).expect(422);

    const rotated = { ...secrets.twilio, authToken: secrets.twilio.authToken.replace(/^./, 'f') };
    const replaced = await a.http.patch(`${BASE}/${ids.sms}`, { credentials: rotated }).expect(200);
    expect(replaced.body.data.hasCredentials).toBe(true);
    expect(JSON.stringify(replaced.body)).not.toContain(rotated.authToken);
    const account = await app.get(ChannelProviderService).account(a.org.id, ids.sms);
    expect(account.credentials).toEqual(rotated);
    await a.http.patch(`${BASE}/${ids.sms}`, { credentials: secrets.twilio }).expect(200);

    const disabled = await a.http.patch(`${BASE}/${ids.sms}`, { status: 'disabled' }).expect(200);
    expect(disabled.body.data.status).toBe('disabled');
    const refused = await a.http
      .post(`${BASE}/${ids.sms}/test`, { to: '+14155550123', text: 'hi' })
      .expect(409);
    expect(refused.body).toMatchObject({
      code: 'E_BUSINESS_RULE_VIOLATION',
      message: 'Provider is disabled',
    });
    await a.http.patch(`${BASE}/${ids.sms}`, { status: 'active' }).expect(200);
  });

  it('keeps one default per channel: isDefault moves it, deleting the default hands it on', async () => {
    const moved = await a.http.patch(`${BASE}/${ids.apns}`, { isDefault: true }).expect(200);
    expect(moved.body.data.isDefault).toBe(true);
    expect((await get(ids.fcm)).isDefault).toBe(false);
    const cleared = await a.http.patch(`${BASE}/${ids.apns}`, { isDefault: false }).expect(422);
    expect(fieldsOf(cleared)).toEqual(['isDefault:enum']);

    // A third push account asked to be the default takes it over in one transaction.
    const third = await create({
      channel: 'push',
      provider: 'fcm',
      name: 'Web',
      credentials: { serviceAccount: serviceAccount(secrets) },
      isDefault: true,
    });
    expect(third.isDefault).toBe(true);
    expect((await get(ids.apns)).isDefault).toBe(false);
    await a.http.delete(`${BASE}/${third.id}`).expect(200);
    await a.http.get(`${BASE}/${third.id}`).expect(404);
    // The oldest remaining push account is the default now.
    expect((await get(ids.fcm)).isDefault).toBe(true);

    // Concurrent creates in a new organization: one default.
    const c = await createSession(app);
    await Promise.all(
      [1, 2, 3, 4].map((i) =>
        c.http.post(BASE, { ...twilioBody(), name: `T${i}`, isDefault: i % 2 === 0 }).expect(201),
      ),
    );
    const [{ n }] = await ds.query(
      `SELECT count(*)::int AS n FROM channel_providers WHERE organization_id = $1 AND is_default`,
      [c.org.id],
    );
    expect(n).toBe(1);
  });

  it('sends a test message through the registry’s adapter, with the decrypted account', async () => {
    const res = await a.http
      .post(`${BASE}/${ids.sms}/test`, { to: '+1 415 555 0123', text: 'Hello from the test' })
      .expect(200);
    expect(res.body.data).toEqual({
      outcome: 'accepted',
      providerMessageId: 'SM-test',
      status: 'sent',
      code: null,
      message: null,
      retryAfterMs: null,
      providerStatus: 'active',
    });
    const { account, message } = twilio.sent.at(-1)!;
    expect(account).toMatchObject({
      id: ids.sms,
      organizationId: a.org.id,
      channel: 'sms',
      provider: 'twilio',
      credentials: secrets.twilio,
    });
    expect(message).toMatchObject({
      to: '+14155550123',
      content: { text: 'Hello from the test' },
      statusCallbackUrl: `${loadConfig().publicBaseUrl}/channels/callbacks/${ids.sms}`,
    });

    await a.http
      .post(`${BASE}/${ids.fcm}/test`, { to: 'device-token-1', title: 'Hi', body: 'There' })
      .expect(200);
    expect(fcm.sent.at(-1)!.message).toMatchObject({
      to: 'device-token-1',
      platform: 'android',
      content: { title: 'Hi', body: 'There' },
    });
    await a.http.post(`${BASE}/${ids.apns}/test`, { to: 'ab12', body: 'x' }).expect(200);
    expect(apns.sent.at(-1)!.message.platform).toBe('ios');

    const noAdapter = await a.http
      .post(`${BASE}/${ids.telegram}/test`, { to: '123456', text: 'hi' })
      .expect(409);
    expect(noAdapter.body.message).toBe('Provider not supported yet: telegram-bot');
    expect(
      fieldsOf(await a.http.post(`${BASE}/${ids.sms}/test`, { to: 'abc', text: 'x' }).expect(422)),
    ).toEqual(['to:type']);
    expect(
      fieldsOf(await a.http.post(`${BASE}/${ids.sms}/test`, { to: '+14155550123' }).expect(422)),
    ).toEqual(['text:required']);
    expect(
      fieldsOf(await a.http.post(`${BASE}/${ids.fcm}/test`, { to: 't', text: 'x' }).expect(422)),
    ).toEqual(['body:required', 'text:unknown']);
  });

  it('turns an account failing after 3 refusals of its credentials in a row, active on the next accepted send', async () => {
    const send = async () =>
      (await a.http.post(`${BASE}/${ids.sms}/test`, { to: '+14155550123', text: 'x' }).expect(200))
        .body.data;
    twilio.next = { kind: 'unauthorized', message: 'Authenticate' };
    expect(await send()).toMatchObject({ outcome: 'unauthorized', providerStatus: 'active' });
    expect(await send()).toMatchObject({ providerStatus: 'active' });
    // A provider outage says nothing of the credentials: the count stands.
    twilio.next = { kind: 'unavailable', message: 'Service Unavailable' };
    expect(await send()).toMatchObject({ outcome: 'unavailable', providerStatus: 'active' });
    twilio.next = { kind: 'unauthorized', message: 'Authenticate' };
    expect(await send()).toMatchObject({ providerStatus: 'failing' });
    expect((await get(ids.sms)).status).toBe('failing');
    const [row] = await ds.query(
      `SELECT consecutive_auth_failures AS n FROM channel_providers WHERE id = $1`,
      [ids.sms],
    );
    expect(row.n).toBe(3);
    twilio.next = { kind: 'accepted', providerMessageId: 'SM-2', status: 'sent' };
    expect(await send()).toMatchObject({ outcome: 'accepted', providerStatus: 'active' });
    const [after] = await ds.query(
      `SELECT consecutive_auth_failures AS n, status FROM channel_providers WHERE id = $1`,
      [ids.sms],
    );
    expect(after).toEqual({ n: 0, status: 'active' });
  });

  it('shows another organization none of it: 404 on every route, nothing listed', async () => {
    const id = ids.sms;
    const sentBefore = twilio.sent.length;
    for (const res of [
      await b.http.get(`${BASE}/${id}`),
      await b.http.patch(`${BASE}/${id}`, { name: 'mine' }),
      await b.http.patch(`${BASE}/${id}`, { isDefault: true }),
      await b.http.post(`${BASE}/${id}/test`, { to: '+14155550123', text: 'x' }),
      await b.http.delete(`${BASE}/${id}`),
    ]) {
      expect({ status: res.status, code: res.body.code }).toEqual({
        status: 404,
        code: 'E_ROW_NOT_FOUND',
      });
    }
    expect(twilio.sent.length).toBe(sentBefore);
    expect((await b.http.get(BASE).expect(200)).body.data).toEqual([]);
    const still = await get(id);
    expect(still).toMatchObject({ name: 'Twilio main', isDefault: true });
    await a.http.get(`${BASE}/${NIL_UUID}`).expect(404);
    await a.http.get(`${BASE}/not-a-uuid`).expect(422);
  });

  it('needs channels:read to read and channels:write to change or test', async () => {
    const reader = await createKey(app, a.org.id, { scopes: ['channels:read'] });
    const r = recorded(client(app, { 'X-API-Key': reader.value }));
    await r.get(BASE).expect(200);
    await r.get(`${BASE}/${ids.sms}`).expect(200);
    for (const res of [
      await r.post(BASE, twilioBody()),
      await r.patch(`${BASE}/${ids.sms}`, { name: 'x' }),
      await r.delete(`${BASE}/${ids.sms}`),
      await r.post(`${BASE}/${ids.sms}/test`, { to: '+14155550123', text: 'x' }),
    ]) {
      expect({ status: res.status, code: res.body.code }).toEqual({
        status: 403,
        code: 'E_INSUFFICIENT_SCOPE',
      });
    }
    const other = await createKey(app, a.org.id, { scopes: ['contacts:read'] });
    const o = client(app, { 'X-API-Key': other.value });
    expect((await o.get(BASE)).body.code).toBe('E_INSUFFICIENT_SCOPE');
  });

  it('refuses a private or loopback apiBaseUrl unless private targets are allowed', async () => {
    // The e2e environment allows them (the fakes listen on loopback).
    const allowed = await create({
      ...twilioBody(),
      name: 'To a fake',
      settings: { from: '+14155550100', apiBaseUrl: 'http://127.0.0.1:4010' },
    });
    await a.http.delete(`${BASE}/${allowed.id}`).expect(200);

    const strict = await createTestApp({
      override: (bld) =>
        bld
          .overrideProvider(APP_CONFIG)
          .useValue({ ...loadConfig(), webhookAllowPrivateTargets: false }),
    });
    try {
      const s = recorded(client(strict, { 'X-API-Key': a.apiKey }));
      for (const apiBaseUrl of [
        'http://127.0.0.1:4010',
        'http://10.0.0.1',
        'http://[::1]:8080',
        'http://localhost:8080',
        'https://169.254.169.254/latest',
      ]) {
        const res = await s.post(BASE, {
          ...twilioBody(),
          settings: { from: '+14155550100', apiBaseUrl },
        });
        expect({ apiBaseUrl, status: res.status, errors: res.body.errors }).toEqual({
          apiBaseUrl,
          status: 422,
          errors: [
            { field: 'settings.apiBaseUrl', rule: 'url', message: 'Please enter a valid URL' },
          ],
        });
      }
      const hook = await s.post(BASE, {
        channel: 'sms',
        provider: 'http',
        name: 'x',
        credentials: {},
        settings: { url: 'http://192.168.1.10/send' },
      });
      expect(fieldsOf(hook)).toEqual(['settings.url:url']);
      const token = await s.post(BASE, {
        channel: 'push',
        provider: 'fcm',
        name: 'x',
        credentials: {
          serviceAccount: serviceAccount(secrets, { token_uri: 'https://127.0.0.1/token' }),
        },
      });
      expect(fieldsOf(token)).toEqual(['credentials.serviceAccount.token_uri:url']);
      const patched = await s.patch(`${BASE}/${ids.sms}`, {
        settings: { from: '+14155550100', apiBaseUrl: 'http://127.0.0.1:1' },
      });
      expect(fieldsOf(patched)).toEqual(['settings.apiBaseUrl:url']);
      // A public address is fine.
      const pub = await s.post(BASE, {
        ...twilioBody(),
        name: 'Public',
        settings: { from: '+14155550100', apiBaseUrl: 'https://8.8.8.8/twilio' },
      });
      expect(pub.status).toBe(201);
      await s.delete(`${BASE}/${pub.body.data.id}`).expect(200);
    } finally {
      await strict.close();
    }
  });

  it('adds and lists providers from the admin CLI, credentials from a file or stdin only', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'providers-'));
    const file = path.join(dir, 'twilio.json');
    writeFileSync(file, JSON.stringify(secrets.twilio), { mode: 0o600 });
    const org = (await createSession(app)).org.id;
    const added = await runAdmin([
      'add-provider',
      '--org',
      org,
      '--channel',
      'sms',
      '--provider',
      'twilio',
      '--name',
      'CLI Twilio',
      '--credentials-file',
      file,
      '--settings',
      '{"from":"+14155550100"}',
      '--json',
    ]);
    bodies.push(JSON.stringify(added));
    expect(added.channelProvider).toMatchObject({
      channel: 'sms',
      provider: 'twilio',
      name: 'CLI Twilio',
      hasCredentials: true,
      isDefault: true,
    });
    const fcmFile = path.join(dir, 'sa.json');
    writeFileSync(fcmFile, JSON.stringify(serviceAccount(secrets)), { mode: 0o600 });
    const addedFcm = await runAdmin([
      'add-provider',
      '--org',
      org,
      '--channel',
      'push',
      '--provider',
      'fcm',
      '--name',
      'FCM',
      '--credentials-file',
      fcmFile,
      '--default',
      '--json',
    ]);
    bodies.push(JSON.stringify(addedFcm));
    expect(addedFcm.channelProvider).toMatchObject({ provider: 'fcm', isDefault: true });

    const listed = await runAdmin(['list-providers', '--org', org, '--json']);
    bodies.push(JSON.stringify(listed));
    expect(listed.total).toBe(2);
    expect((listed.channelProviders as ProviderJson[]).map((p) => p.name).sort()).toEqual([
      'CLI Twilio',
      'FCM',
    ]);
    await expect(
      runAdmin([
        'add-provider',
        '--org',
        org,
        '--channel',
        'sms',
        '--provider',
        'twilio',
        '--name',
        'x',
        '--json',
      ]),
    ).rejects.toMatchObject({ errors: [{ field: 'credentials-file', rule: 'required' }] });
    await expect(
      runAdmin([
        'add-provider',
        '--org',
        org,
        '--channel',
        'sms',
        '--provider',
        'twilio',
        '--name',
        'x',
        '--credentials',
        JSON.stringify(secrets.twilio),
        '--json',
      ]),
    ).rejects.toBeInstanceOf(ValidationFailedError);
    // stdin: the whole input is the JSON object.
    const fromStdin = await readCredentials(
      { 'credentials-stdin': true },
      { stdin: Readable.from([Buffer.from(JSON.stringify(secrets.whatsapp))]) },
    );
    expect(fromStdin).toEqual(secrets.whatsapp);
    await expect(
      readCredentials(
        { 'credentials-stdin': true },
        { stdin: Readable.from([Buffer.from('[1]')]) },
      ),
    ).rejects.toMatchObject({ errors: [{ field: 'credentials', rule: 'type' }] });
  });

  it('never put a credential in a response body or a log line', () => {
    expect(lines.some((l) => l.includes('channel provider created'))).toBe(true);
    expect(lines.some((l) => l.includes('channel provider test send'))).toBe(true);
    expect(bodies.length).toBeGreaterThan(50);
    for (const secret of secretStrings(secrets)) {
      expect(bodies.filter((body) => body.includes(secret))).toEqual([]);
      expect(lines.filter((line) => line.includes(secret))).toEqual([]);
    }
  });
});
