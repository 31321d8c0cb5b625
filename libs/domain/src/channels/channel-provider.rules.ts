// Field rules of provider accounts (§17 "Provider fields"), one source of truth for the API and
// the admin CLI: which provider serves which channel, the credential and settings fields each
// provider takes, and its default throughput. Messages never quote a credential's value.
import { createPrivateKey, randomBytes } from 'node:crypto';
import { normalisePhone } from '../contacts/phone-number';
import type { FieldError } from '../errors/domain-errors';
import { blockedAddressReason } from '../dns/address-ranges';
import { bareHost } from '../dns/target';
import { parseWebhookUrl } from '../webhooks/webhook-target-guard';
import { PROVIDER_CHANNELS, ProviderChannel } from './provider-adapter';
import type { ProviderName } from './channel-provider.entity';

/** The channels each provider serves; `http` is the generic provider of any channel. */
export const PROVIDER_CHANNELS_OF: Record<ProviderName, readonly ProviderChannel[]> = {
  twilio: ['sms'],
  'whatsapp-cloud': ['whatsapp'],
  'telegram-bot': ['telegram'],
  fcm: ['push'],
  apns: ['push'],
  blooio: ['imessage'],
  http: PROVIDER_CHANNELS,
};

/**
 * Messages a second an account sends when it does not say (docs/channels/providers.md gives the
 * sources): Twilio's long code sends 1 a second per number; WhatsApp Cloud API 80 a second per
 * number; Telegram's bulk broadcast limit is about 30 a second; FCM's project quota is 600,000 a
 * minute shared by every sender of the project, of which this takes 600 a second; Apple publishes no
 * figure for APNs, which takes thousands a second on one connection; Blooio publishes no figure
 * either (docs.blooio.com), and each of its senders is one Apple device signed in to iMessage, which
 * Apple flags when it sends in bursts, so it starts at 1 a second per account; the generic `http`
 * provider starts low.
 */
export const DEFAULT_MAX_PER_SECOND: Record<ProviderName, number> = {
  twilio: 1,
  'whatsapp-cloud': 80,
  'telegram-bot': 30,
  fcm: 600,
  apns: 1000,
  blooio: 1,
  http: 10,
};
export const MAX_PER_SECOND_LIMIT = 10_000;

export const INVALID_URL = 'Please enter a valid URL';

/** A field whose URL the service must check like a webhook target (private addresses). */
export interface UrlField {
  field: string;
  url: URL;
}

export interface CheckedFields {
  credentials: Record<string, unknown>;
  settings: Record<string, unknown>;
  errors: FieldError[];
  /** URLs the platform will connect to: checked for private targets by the service. */
  urls: UrlField[];
  /** The `http` provider's secret when none was given: shown once, at creation. */
  generatedSecret?: string;
}

interface FieldSpec {
  required?: boolean;
  /** Null when the value is right, else the rule broken and the message. */
  check: (v: unknown) => { rule: string; message: string } | null;
}

const typed = (message: string, ok: (v: unknown) => boolean): FieldSpec['check'] => {
  return (v) => (ok(v) ? null : { rule: 'type', message });
};
const text = (re: RegExp, message: string) =>
  typed(message, (v) => typeof v === 'string' && re.test(v));
const nonEmpty = (max: number, message: string) =>
  typed(message, (v) => typeof v === 'string' && v.length > 0 && v.length <= max);
const url: FieldSpec['check'] = (v) =>
  parseWebhookUrl(v) ? null : { rule: 'url', message: INVALID_URL };
const e164 = typed(
  'from must be a phone number in E.164 format, e.g. +14155550100',
  (v) => typeof v === 'string' && normalisePhone(v) === v,
);

/** A PEM private key of the given type; the key's text never appears in the message. */
const pemKey = (type: 'rsa' | 'ec', message: string): FieldSpec['check'] =>
  typed(message, (v) => {
    if (typeof v !== 'string' || !v.includes('-----BEGIN') || v.length > 16_384) return false;
    try {
      const key = createPrivateKey(v);
      return (
        key.asymmetricKeyType === type &&
        (type !== 'ec' || key.asymmetricKeyDetails?.namedCurve === 'prime256v1')
      );
    } catch {
      return false;
    }
  });

const API_BASE_URL: FieldSpec = { check: url };

interface ProviderSpec {
  credentials: Record<string, FieldSpec>;
  settings: Record<string, FieldSpec>;
  /** Rules across fields of the settings. */
  settingsRule?: (s: Record<string, unknown>) => FieldError | null;
}

const STANDARD_WEBHOOK_SECRET = /^whsec_[A-Za-z0-9+/]{32,88}={0,2}$/;

const SPECS: Record<ProviderName, ProviderSpec> = {
  twilio: {
    credentials: {
      accountSid: {
        required: true,
        check: text(/^AC[0-9a-fA-F]{32}$/, 'accountSid must be AC followed by 32 hex digits'),
      },
      authToken: { required: true, check: nonEmpty(256, 'authToken must be a non-empty string') },
    },
    settings: {
      from: { check: e164 },
      messagingServiceSid: {
        check: text(
          /^MG[0-9a-fA-F]{32}$/,
          'messagingServiceSid must be MG followed by 32 hex digits',
        ),
      },
      apiBaseUrl: API_BASE_URL,
    },
    settingsRule: (s) => {
      const given = ['from', 'messagingServiceSid'].filter((k) => s[k] !== undefined);
      if (given.length === 1) return null;
      return {
        field: 'settings.from',
        rule: given.length ? 'type' : 'required',
        message: 'Give either settings.from or settings.messagingServiceSid, not both',
      };
    },
  },
  'whatsapp-cloud': {
    credentials: {
      accessToken: {
        required: true,
        check: nonEmpty(1024, 'accessToken must be a non-empty string'),
      },
      appSecret: {
        required: true,
        check: text(/^[0-9a-fA-F]{32}$/, 'appSecret must be the app secret: 32 hex digits'),
      },
    },
    settings: {
      phoneNumberId: {
        required: true,
        check: text(/^\d{1,32}$/, 'phoneNumberId must be the numeric id of the phone number'),
      },
      businessAccountId: {
        check: text(/^\d{1,32}$/, 'businessAccountId must be a numeric id'),
      },
      verifyToken: {
        check: nonEmpty(256, 'verifyToken must be a non-empty string of at most 256 characters'),
      },
      apiBaseUrl: API_BASE_URL,
    },
  },
  'telegram-bot': {
    credentials: {
      botToken: {
        required: true,
        check: text(/^\d{1,20}:[A-Za-z0-9_-]{30,64}$/, 'botToken must be the token BotFather gave'),
      },
    },
    settings: {
      botUsername: {
        required: true,
        check: text(
          /^[A-Za-z][A-Za-z0-9_]{1,28}[Bb][Oo][Tt]$/,
          'botUsername must be a bot username (5 to 32 characters, ending in "bot")',
        ),
      },
      apiBaseUrl: API_BASE_URL,
    },
  },
  fcm: {
    credentials: {
      serviceAccount: {
        required: true,
        check: typed('serviceAccount must be the service-account JSON key as an object', isObject),
      },
    },
    settings: { apiBaseUrl: API_BASE_URL },
  },
  apns: {
    credentials: {
      keyId: { required: true, check: text(/^[A-Z0-9]{10}$/, 'keyId must be 10 characters') },
      teamId: { required: true, check: text(/^[A-Z0-9]{10}$/, 'teamId must be 10 characters') },
      privateKey: {
        required: true,
        check: pemKey('ec', 'privateKey must be the .p8 key (an EC P-256 private key in PEM)'),
      },
    },
    settings: {
      bundleId: {
        required: true,
        check: text(
          /^[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$/,
          "bundleId must be the app's bundle id, e.g. com.example.app",
        ),
      },
      environment: {
        check: (v) =>
          v === 'production' || v === 'sandbox'
            ? null
            : { rule: 'enum', message: 'environment must be production or sandbox' },
      },
      apiBaseUrl: API_BASE_URL,
    },
  },
  blooio: {
    credentials: {
      apiKey: { required: true, check: nonEmpty(512, 'apiKey must be a non-empty string') },
      // The signing_secret Blooio returns once when the webhook pointing at our callback URL is
      // created (which needs the account's id: it is added by a change once the account exists);
      // until then no status or inbound callback is trusted.
      signingSecret: {
        check: nonEmpty(512, 'signingSecret must be the webhook signing secret Blooio returned'),
      },
    },
    settings: {
      fromNumber: {
        check: typed(
          'fromNumber must be a phone number in E.164 format, e.g. +14155550100',
          (v) => typeof v === 'string' && normalisePhone(v) === v,
        ),
      },
      apiBaseUrl: API_BASE_URL,
    },
  },
  http: {
    credentials: {
      secret: {
        check: text(
          STANDARD_WEBHOOK_SECRET,
          'secret must be a Standard Webhooks secret: whsec_ and 24 to 64 bytes in base64',
        ),
      },
    },
    settings: { url: { required: true, check: url }, apiBaseUrl: API_BASE_URL },
  },
};

/** The fields of a service-account key the FCM adapter uses; the key's other fields are kept. */
const SERVICE_ACCOUNT: Record<string, FieldSpec> = {
  type: {
    required: true,
    check: typed('type must be service_account', (v) => v === 'service_account'),
  },
  project_id: {
    required: true,
    check: text(/^[a-z][a-z0-9-]{4,61}[a-z0-9]$/, 'project_id must be a Google Cloud project id'),
  },
  private_key: {
    required: true,
    check: pemKey('rsa', 'private_key must be the RSA private key in PEM of the key file'),
  },
  client_email: {
    required: true,
    check: text(/^[^\s@]+@[^\s@]+$/, 'client_email must be the service account e-mail'),
  },
  // The signed assertion travels to it: https, except to a loopback address (the fakes of
  // development and tests; any private target is refused later unless private targets are allowed).
  token_uri: {
    required: true,
    check: (v) => {
      const u = parseWebhookUrl(v);
      const host = u ? bareHost(u.hostname) : '';
      const loopback = host === 'localhost' || blockedAddressReason(host) === 'a loopback address';
      return u && (u.protocol === 'https:' || loopback)
        ? null
        : { rule: 'url', message: INVALID_URL };
    },
  },
};

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Checks `value` against `specs`, unknown keys refused unless `open`. */
function checkObject(
  prefix: string,
  value: Record<string, unknown>,
  specs: Record<string, FieldSpec>,
  errors: FieldError[],
  open = false,
): void {
  for (const [name, spec] of Object.entries(specs)) {
    const v = value[name];
    const field = `${prefix}.${name}`;
    if (v === undefined || v === null) {
      if (spec.required) errors.push({ field, rule: 'required', message: `${field} is required` });
      continue;
    }
    const bad = spec.check(v);
    if (bad) errors.push({ field, ...bad });
  }
  if (open) return;
  for (const name of Object.keys(value)) {
    if (!(name in specs)) {
      errors.push({
        field: `${prefix}.${name}`,
        rule: 'unknown',
        message: `${prefix}.${name} is not a field of this provider`,
      });
    }
  }
}

/** Whether `provider` may serve `channel` (§17). */
export function servesChannel(provider: ProviderName, channel: ProviderChannel): boolean {
  return PROVIDER_CHANNELS_OF[provider].includes(channel);
}

/**
 * Checks a provider's credentials and settings as a whole (a change replaces either object whole).
 * Unknown fields are refused; settings without `environment` get `production` (APNs).
 */
export function checkProviderFields(
  provider: ProviderName,
  credentials: unknown,
  settings: unknown,
): CheckedFields {
  const spec = SPECS[provider];
  const errors: FieldError[] = [];
  const urls: UrlField[] = [];
  const creds = isObject(credentials) ? { ...credentials } : null;
  const sets = settings === undefined ? {} : isObject(settings) ? { ...settings } : null;
  if (!creds) {
    errors.push({ field: 'credentials', rule: 'type', message: 'credentials must be an object' });
  } else {
    checkObject('credentials', creds, spec.credentials, errors);
  }
  if (!sets) {
    errors.push({ field: 'settings', rule: 'type', message: 'settings must be an object' });
  } else {
    checkObject('settings', sets, spec.settings, errors);
    const cross = spec.settingsRule?.(sets);
    if (cross) errors.push(cross);
    for (const name of ['apiBaseUrl', 'url']) {
      const u = parseWebhookUrl(sets[name]);
      if (u) urls.push({ field: `settings.${name}`, url: u });
    }
    if (provider === 'apns' && sets.environment === undefined) sets.environment = 'production';
  }
  if (creds && provider === 'fcm' && isObject(creds.serviceAccount)) {
    checkObject('credentials.serviceAccount', creds.serviceAccount, SERVICE_ACCOUNT, errors, true);
    const u = parseWebhookUrl(creds.serviceAccount.token_uri);
    if (u) urls.push({ field: 'credentials.serviceAccount.token_uri', url: u });
  }
  let generatedSecret: string | undefined;
  if (creds && provider === 'http' && creds.secret === undefined) {
    generatedSecret = `whsec_${randomBytes(32).toString('base64')}`;
    creds.secret = generatedSecret;
  }
  return { credentials: creds ?? {}, settings: sets ?? {}, errors, urls, generatedSecret };
}
