import { generateKeyPairSync } from 'node:crypto';
import { checkProviderFields, servesChannel } from './channel-provider.rules';
import type { ProviderAdapter, ProviderChannel } from './provider-adapter';
import { ProviderRegistry } from './provider-registry';

function adapter(channel: ProviderChannel, provider: string): ProviderAdapter {
  return {
    channel,
    provider,
    send: () => Promise.resolve({ kind: 'unavailable', message: 'not in a unit test' }),
    verifySignature: () => false,
    parseStatus: () => [],
    parseInbound: () => [],
  };
}

const SID = `AC${'0123456789abcdef'.repeat(2)}`;
const pem = (type: 'rsa' | 'ec') =>
  (type === 'rsa'
    ? generateKeyPairSync('rsa', { modulusLength: 1024 })
    : generateKeyPairSync('ec', { namedCurve: 'P-256' })
  ).privateKey
    .export({ type: 'pkcs8', format: 'pem' })
    .toString();

const fields = (r: ReturnType<typeof checkProviderFields>) =>
  r.errors.map((e) => `${e.field}:${e.rule}`);

describe('checkProviderFields', () => {
  it('takes Twilio credentials with a sender number or a messaging service, not both', () => {
    const creds = { accountSid: SID, authToken: 'token' };
    expect(fields(checkProviderFields('twilio', creds, { from: '+14155550100' }))).toEqual([]);
    expect(
      fields(checkProviderFields('twilio', creds, { messagingServiceSid: `MG${'a'.repeat(32)}` })),
    ).toEqual([]);
    expect(fields(checkProviderFields('twilio', creds, {}))).toEqual(['settings.from:required']);
    expect(
      fields(
        checkProviderFields('twilio', creds, {
          from: '+14155550100',
          messagingServiceSid: `MG${'a'.repeat(32)}`,
        }),
      ),
    ).toEqual(['settings.from:type']);
    expect(fields(checkProviderFields('twilio', { accountSid: 'AC1' }, { from: '+1415' }))).toEqual(
      ['credentials.accountSid:type', 'credentials.authToken:required', 'settings.from:type'],
    );
  });

  it('checks the keys of APNs and FCM for what they are, never quoting them', () => {
    const rsa = pem('rsa');
    const ec = pem('ec');
    const apns = checkProviderFields(
      'apns',
      { keyId: 'ABC123DEFG', teamId: 'DEF123GHIJ', privateKey: rsa },
      { bundleId: 'com.example.app' },
    );
    expect(fields(apns)).toEqual(['credentials.privateKey:type']);
    expect(JSON.stringify(apns.errors)).not.toContain('PRIVATE KEY');
    const ok = checkProviderFields(
      'apns',
      { keyId: 'ABC123DEFG', teamId: 'DEF123GHIJ', privateKey: ec },
      { bundleId: 'com.example.app' },
    );
    expect(ok.errors).toEqual([]);
    expect(ok.settings.environment).toBe('production');
    const fcm = checkProviderFields(
      'fcm',
      {
        serviceAccount: {
          type: 'service_account',
          project_id: 'demo-project',
          private_key: rsa,
          client_email: 'a@demo-project.iam.gserviceaccount.com',
          token_uri: 'https://oauth2.googleapis.com/token',
          client_id: '1',
        },
      },
      undefined,
    );
    expect(fcm.errors).toEqual([]);
    expect(fcm.urls.map((u) => u.field)).toEqual(['credentials.serviceAccount.token_uri']);
  });

  it('generates the http provider secret only when none is given', () => {
    const made = checkProviderFields('http', {}, { url: 'https://example.com/send' });
    expect(made.generatedSecret).toMatch(/^whsec_/);
    expect(made.credentials.secret).toBe(made.generatedSecret);
    const given = checkProviderFields(
      'http',
      { secret: made.generatedSecret },
      { url: 'https://example.com/send', apiBaseUrl: 'https://api.example.com' },
    );
    expect(given.generatedSecret).toBeUndefined();
    expect(given.urls.map((u) => u.field)).toEqual(['settings.apiBaseUrl', 'settings.url']);
  });

  it('takes a Blooio API key, a signing secret (later), and an E.164 sender from the pool', () => {
    const creds = { apiKey: 'bl_live_key', signingSecret: 'whsec_0123456789abcdef' };
    const ok = checkProviderFields('blooio', creds, {
      fromNumber: '+14155550100',
      apiBaseUrl: 'https://backend.blooio.com/v2/api',
    });
    expect(ok.errors).toEqual([]);
    expect(ok.urls.map((u) => u.field)).toEqual(['settings.apiBaseUrl']);
    expect(fields(checkProviderFields('blooio', creds, undefined))).toEqual([]);
    // The webhook's secret exists only once the webhook points at the account's callback URL.
    expect(fields(checkProviderFields('blooio', { apiKey: 'bl_live_key' }, undefined))).toEqual([]);
    const bad = checkProviderFields(
      'blooio',
      { apiKey: '' },
      { fromNumber: '4155550100', from: 'x' },
    );
    expect(fields(bad)).toEqual([
      'credentials.apiKey:type',
      'settings.fromNumber:type',
      'settings.from:unknown',
    ]);
    expect(bad.errors[1].message).toBe(
      'fromNumber must be a phone number in E.164 format, e.g. +14155550100',
    );
    expect(servesChannel('blooio', 'imessage')).toBe(true);
    expect(servesChannel('blooio', 'sms')).toBe(false);
  });

  it('pairs providers with their channels', () => {
    expect(servesChannel('twilio', 'sms')).toBe(true);
    expect(servesChannel('twilio', 'push')).toBe(false);
    expect(servesChannel('http', 'imessage')).toBe(true);
  });
});

describe(ProviderRegistry.name, () => {
  it('serves an adapter by channel and provider, and refuses two for the same pair', () => {
    const sms = adapter('sms', 'twilio');
    const registry = new ProviderRegistry([sms]);
    expect(registry.adapterFor('sms', 'twilio')).toBe(sms);
    expect(registry.adapterFor('push', 'twilio')).toBeNull();
    expect(() => new ProviderRegistry([sms, adapter('sms', 'twilio')])).toThrow(
      'Two provider adapters for sms/twilio',
    );
  });
});
