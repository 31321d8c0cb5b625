// Shared set-up of the provider-account tests: credentials of each provider in their real shapes
// (fresh keys per run), and an adapter that records what it was asked to send and answers what the
// test tells it to.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import type {
  ProviderAccount,
  ProviderAdapter,
  ProviderChannel,
  ProviderMessage,
  SendOutcome,
} from '@app/domain';

export const hex = (bytes: number) => randomBytes(bytes).toString('hex');

export function providerSecrets() {
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return {
    twilio: { accountSid: `AC${hex(16)}`, authToken: hex(16) },
    rsaPem: rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    ecPem: ec.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    whatsapp: { accessToken: `EAAG${randomBytes(60).toString('base64url')}`, appSecret: hex(16) },
    botToken: `${1_000_000 + Math.floor(Math.random() * 1e6)}:${randomBytes(26).toString('base64url')}`,
    httpSecret: `whsec_${randomBytes(32).toString('base64')}`,
  };
}
export type ProviderSecrets = ReturnType<typeof providerSecrets>;

/** The FCM service-account JSON key, as Google's console gives it. */
export function serviceAccount(secrets: ProviderSecrets, overrides: Record<string, unknown> = {}) {
  return {
    type: 'service_account',
    project_id: 'demo-project-1',
    private_key_id: hex(20),
    private_key: secrets.rsaPem,
    client_email: 'push@demo-project-1.iam.gserviceaccount.com',
    client_id: '1234567890',
    auth_uri: 'https://accounts.google.com/o/oauth2/auth',
    token_uri: 'https://oauth2.googleapis.com/token',
    ...overrides,
  };
}

/** The secret strings of `secrets` a response or a log line must never carry. */
export function secretStrings(secrets: ProviderSecrets): string[] {
  const pemLine = (pem: string) => pem.split('\n')[3];
  return [
    secrets.twilio.authToken,
    pemLine(secrets.rsaPem),
    pemLine(secrets.ecPem),
    secrets.whatsapp.accessToken,
    secrets.whatsapp.appSecret,
    secrets.botToken,
    secrets.httpSecret,
  ];
}

export class RecordingAdapter implements ProviderAdapter {
  readonly sent: { account: ProviderAccount; message: ProviderMessage }[] = [];
  next: SendOutcome = { kind: 'accepted', providerMessageId: 'SM-test', status: 'sent' };

  constructor(
    readonly channel: ProviderChannel,
    readonly provider: string,
  ) {}

  async send(account: ProviderAccount, message: ProviderMessage): Promise<SendOutcome> {
    this.sent.push({ account, message });
    return this.next;
  }
  verifySignature(): boolean {
    return false;
  }
  parseStatus() {
    return [];
  }
  parseInbound() {
    return [];
  }
}
