// The providers the dashboard connects, their fields and where each value is found in the
// provider's console (wording from docs/channels/*.md), and the turning of the form's strings into
// the `credentials` and `settings` objects the API takes.
import type { ChannelProvider, ProviderChannel } from '../../api/types';
import { CHAT_PROVIDER_SPECS } from './chat-provider-specs';

/** Every provider the API serves (the OpenAPI document's enum). */
export type ConnectableProvider = ChannelProvider['provider'];

export type FieldInput = 'text' | 'password' | 'pem' | 'json' | 'environment';

export interface FieldSpec {
  /** The API's field path, also the form's: `credentials.accountSid`, `settings.from`. */
  path: string;
  label: string;
  help: string;
  input: FieldInput;
  required?: boolean;
  placeholder?: string;
}

export interface ProviderSpec {
  provider: ConnectableProvider;
  /** The channel it serves; null for a provider of any channel, whose form asks which. */
  channel: ProviderChannel | null;
  label: string;
  fields: FieldSpec[];
  /** Where `settings.apiBaseUrl` goes when left empty; null when the provider has no API of its own. */
  defaultApiBase: string | null;
  /** Messages a second when the account does not say (the API's default). */
  defaultRate: number;
  /** What the platform does with the provider by itself when the account is saved. */
  note?: string;
  /**
   * Where the account's callback URL goes in the provider's console, for providers that need it
   * pasted there (shown with the URL on the account's page).
   */
  callbackHelp?: string;
}

export const PROVIDER_SPECS: Record<ConnectableProvider, ProviderSpec> = {
  twilio: {
    provider: 'twilio',
    channel: 'sms',
    label: 'Twilio (SMS)',
    defaultApiBase: 'https://api.twilio.com',
    defaultRate: 1,
    fields: [
      {
        path: 'credentials.accountSid',
        label: 'Account SID',
        help: 'Starts with AC. Twilio Console home, Account Info; or Admin → Account management → API keys & tokens.',
        input: 'password',
        required: true,
      },
      {
        path: 'credentials.authToken',
        label: 'Auth Token',
        help: 'Same panel, Auth Token. After rotating it in Twilio, update it here: callbacks signed with the new token are refused until then.',
        input: 'password',
        required: true,
      },
      {
        path: 'settings.from',
        label: 'From',
        help: 'The sender: a Twilio number in E.164 (+14155550100), a short code or an alphanumeric sender ID. Phone Numbers → Manage → Active numbers. Give this or a Messaging Service SID.',
        input: 'text',
        placeholder: '+14155550100',
      },
      {
        path: 'settings.messagingServiceSid',
        label: 'Messaging Service SID',
        help: 'Instead of From: MG…, under Messaging → Services. Twilio picks the sender from the service’s pool.',
        input: 'text',
      },
    ],
  },
  fcm: {
    provider: 'fcm',
    channel: 'push',
    label: 'Firebase Cloud Messaging (push)',
    defaultApiBase: 'https://fcm.googleapis.com',
    defaultRate: 600,
    fields: [
      {
        path: 'credentials.serviceAccount',
        label: 'Service-account key (JSON)',
        help: 'Firebase console → Project settings → Service accounts → Firebase Admin SDK → Generate new private key; paste the downloaded file or choose it below. The Cloud Messaging tab must show Firebase Cloud Messaging API (V1) enabled.',
        input: 'json',
        required: true,
      },
    ],
  },
  apns: {
    provider: 'apns',
    channel: 'push',
    label: 'Apple Push Notification service (push)',
    defaultApiBase: 'Apple’s server for the environment',
    defaultRate: 1000,
    fields: [
      {
        path: 'credentials.keyId',
        label: 'Key ID',
        help: '10 characters, on the key’s page under Certificates, Identifiers & Profiles → Keys (and in the file name, AuthKey_<KeyID>.p8).',
        input: 'password',
        required: true,
      },
      {
        path: 'credentials.teamId',
        label: 'Team ID',
        help: '10 characters: developer.apple.com → Account → Membership details.',
        input: 'password',
        required: true,
      },
      {
        path: 'credentials.privateKey',
        label: 'Private key (.p8)',
        help: 'The content of the .p8 file (-----BEGIN PRIVATE KEY-----…). Keys → add (+), tick Apple Push Notifications service (APNs), then Download: Apple lets you download it once only.',
        input: 'pem',
        required: true,
      },
      {
        path: 'settings.bundleId',
        label: 'Bundle ID',
        help: 'The app’s bundle id (com.example.app): Certificates, Identifiers & Profiles → Identifiers, or the app target’s General tab in Xcode.',
        input: 'text',
        required: true,
        placeholder: 'com.example.app',
      },
      {
        path: 'settings.environment',
        label: 'Environment',
        help: 'Production for App Store and TestFlight builds; sandbox for builds run from Xcode. A device token belongs to one environment.',
        input: 'environment',
      },
    ],
  },
  ...CHAT_PROVIDER_SPECS,
};

/** The description of the API base URL field, naming where the API is when it is left empty. */
export function apiBaseHelp(defaultApiBase: string | null): string {
  return `The provider’s API at another address: a regional endpoint, a compatible service or a development fake. Left empty: ${defaultApiBase}.`;
}

export const CONNECTABLE = Object.keys(PROVIDER_SPECS) as ConnectableProvider[];

export const PROVIDER_LABEL: Record<ConnectableProvider, string> = {
  twilio: 'Twilio',
  fcm: 'Firebase Cloud Messaging',
  apns: 'APNs',
  'whatsapp-cloud': 'WhatsApp Cloud API',
  'telegram-bot': 'Telegram bot',
  blooio: 'Blooio',
  http: 'HTTP endpoint',
};

/** Each channel a provider carries, in the order the channel selects offer them. */
export const CHANNEL_LABEL: Record<ProviderChannel, string> = {
  sms: 'SMS',
  push: 'Push',
  whatsapp: 'WhatsApp',
  telegram: 'Telegram',
  imessage: 'iMessage',
};

/** Every field the form may hold, as strings: `credentials.x` and `settings.y`. */
export type FieldValues = Record<'credentials' | 'settings', Record<string, string>>;

export function emptyFieldValues(): FieldValues {
  const out: FieldValues = { credentials: {}, settings: { apiBaseUrl: '' } };
  for (const spec of Object.values(PROVIDER_SPECS)) {
    for (const f of spec.fields) {
      const [group, name] = f.path.split('.') as ['credentials' | 'settings', string];
      out[group][name] = f.input === 'environment' ? 'production' : '';
    }
  }
  return out;
}

/** Thrown when the service-account text is not a JSON object: shown on its field. */
export class LocalFieldError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The provider's non-empty fields of `group` as the API takes them; the FCM key's text is parsed
 * here, so the API receives the object (and its own field errors name the key's fields).
 */
export function valuesFor(
  provider: ConnectableProvider,
  group: 'credentials' | 'settings',
  values: FieldValues,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const names = PROVIDER_SPECS[provider].fields
    .filter((f) => f.path.startsWith(`${group}.`))
    .map((f) => f.path.slice(group.length + 1));
  if (group === 'settings') names.push('apiBaseUrl');
  for (const name of names) {
    const raw = values[group][name] ?? '';
    const v = name === 'privateKey' ? raw.trim() + '\n' : raw.trim();
    if (!raw.trim()) continue;
    out[name] = name === 'serviceAccount' ? parseServiceAccount(v) : v;
  }
  return out;
}

function parseServiceAccount(text: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new LocalFieldError(
      'credentials.serviceAccount',
      'This is not JSON: paste the whole key file, from { to }',
    );
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new LocalFieldError(
      'credentials.serviceAccount',
      'The key file is a JSON object ({ "type": "service_account", … })',
    );
  }
  return parsed as Record<string, unknown>;
}

/** The API names a wrong field inside the FCM key (`credentials.serviceAccount.private_key`). */
export const SERVICE_ACCOUNT_ERRORS: Record<string, string> = Object.fromEntries(
  ['type', 'project_id', 'private_key', 'client_email', 'token_uri', 'private_key_id'].map((k) => [
    `credentials.serviceAccount.${k}`,
    'credentials.serviceAccount',
  ]),
);

/** Every form path of the provider's fields, for placing the API's 422 messages. */
export function fieldPaths(provider: ConnectableProvider, only?: 'credentials'): string[] {
  const paths = PROVIDER_SPECS[provider].fields.map((f) => f.path);
  const all = only
    ? paths.filter((p) => p.startsWith(`${only}.`))
    : [...paths, 'settings.apiBaseUrl'];
  return all;
}

/**
 * The provider's stored settings as the form's strings (an APNs account without `environment`
 * sends to production), so the edit form starts from what is stored.
 */
export function settingsValues(
  provider: ConnectableProvider,
  settings: Record<string, unknown>,
): Record<string, string> {
  const out = emptyFieldValues().settings;
  const names = PROVIDER_SPECS[provider].fields
    .filter((f) => f.path.startsWith('settings.'))
    .map((f) => f.path.slice('settings.'.length));
  for (const name of [...names, 'apiBaseUrl']) {
    const v = settings[name];
    if (typeof v === 'string' || typeof v === 'number') out[name] = String(v);
  }
  return out;
}

/**
 * Credentials replace the stored ones together: once one field is filled in, the required ones
 * left empty, by form path (none when every field is empty, which keeps the stored credentials).
 */
export function missingCredentials(provider: ConnectableProvider, values: FieldValues): string[] {
  const fields = PROVIDER_SPECS[provider].fields.filter((f) => f.path.startsWith('credentials.'));
  const filled = (path: string) => !!values.credentials[path.slice('credentials.'.length)]?.trim();
  if (!fields.some((f) => filled(f.path))) return [];
  return fields.filter((f) => f.required && !filled(f.path)).map((f) => f.path);
}
