// The provider layer (§17): one adapter per provider API, each speaking its provider's wire format
// and nothing else. The send path, the callbacks route and the worker reach every provider through
// this interface; which adapter serves an account is the registry's choice (provider-registry.ts).
import type { OrgId } from '../common/org-id';

/** The channels beyond email that go out through a provider account. */
export const PROVIDER_CHANNELS = ['sms', 'whatsapp', 'telegram', 'push', 'imessage'] as const;
export type ProviderChannel = (typeof PROVIDER_CHANNELS)[number];

/** A provider account as an adapter needs it: decrypted credentials, non-secret settings. */
export interface ProviderAccount {
  id: string;
  organizationId: OrgId;
  channel: ProviderChannel;
  provider: string;
  /** Non-secret settings (sender number, project id, bundle id, `apiBaseUrl`…). */
  settings: Record<string, unknown>;
  /** Decrypted credentials; never logged, never in a queue payload or a response. */
  credentials: Record<string, unknown>;
}

export interface SmsContent {
  text: string;
  /** Media URLs of an MMS (providers that take them). */
  mediaUrls?: string[];
}

/** A WhatsApp message: free text inside the 24-hour customer-service window, else a template. */
export interface WhatsappContent {
  text?: string;
  /** An approved message template: its name, language code and body parameters, in order. */
  template?: { name: string; language: string; parameters?: string[] };
}

export interface TelegramContent {
  text: string;
  /** Telegram's `parse_mode`; plain text when absent. */
  parseMode?: 'HTML' | 'MarkdownV2';
}

export interface ImessageContent {
  text: string;
  mediaUrls?: string[];
}

export interface PushContent {
  title?: string;
  body?: string;
  data?: Record<string, string>;
  imageUrl?: string;
  ttlSeconds?: number;
  collapseKey?: string;
}

/** One message to one address, as the worker hands it to an adapter. */
export interface ProviderMessage {
  /** Our reference for the message (the job id): providers that echo a reference get it. */
  reference: string;
  /** The channel's own address: E.164 phone number, device token, chat id, Apple id. */
  to: string;
  /** Push records only: the platform the token belongs to. */
  platform?: 'ios' | 'android' | 'web';
  content: SmsContent | WhatsappContent | TelegramContent | ImessageContent | PushContent;
  /** Where the provider posts status callbacks for this message (signed by the provider). */
  statusCallbackUrl: string;
}

/**
 * What a provider answered to a send:
 * - `accepted`: it took the message (`sent`), or reports it delivered already (`delivered`);
 * - `rejected`: it refused this message; a `permanent` refusal with an `addressEffect` is a bounce
 *   that marks the contact's record (`invalid`: number invalid, push token unregistered;
 *   `blocked`: the person blocked our sender);
 * - `throttled`: a 429; try again after `retryAfterMs`;
 * - `unavailable`: no answer, a 5xx or a timeout; the message is deferred and retried;
 * - `unauthorized`: the account's credentials were refused (counts toward `failing`).
 */
export type SendOutcome =
  | { kind: 'accepted'; providerMessageId: string; status: 'sent' | 'delivered'; segments?: number }
  | {
      kind: 'rejected';
      permanent: boolean;
      addressEffect?: AddressEffect;
      code: string;
      message: string;
    }
  | { kind: 'throttled'; retryAfterMs: number }
  | { kind: 'unavailable'; message: string }
  | { kind: 'unauthorized'; message: string };

/** What a provider's answer says of the address itself, for the contact's record. */
export type AddressEffect = 'invalid' | 'blocked';

/** A request that reached `/channels/callbacks/{providerId}`, as the adapter needs to check it. */
export interface ProviderCallback {
  /** The exact public URL the provider posted to (signatures cover it). */
  url: string;
  method: string;
  /** Lower-case header names. */
  headers: Record<string, string | undefined>;
  rawBody: Buffer;
}

/** A status a provider reports for one of our messages. */
export interface StatusUpdate {
  providerMessageId: string;
  status: 'sent' | 'delivered' | 'read' | 'bounced' | 'failed';
  /** The provider's own error code, when it gave one. */
  code?: string;
  description?: string;
  occurredAt?: Date;
  /** What the report says of the address (default: `invalid` for a bounce, nothing otherwise). */
  addressEffect?: AddressEffect;
}

/**
 * What a contact did towards one of our numbers or bots: sent a text (`message`), or blocked or
 * unblocked our sender (`blocked`, `unblocked`; Telegram's bot kicked or restarted). `from` is the
 * contact's address on the channel (E.164 number, chat id).
 */
export type InboundProviderMessage =
  | {
      kind: 'message';
      providerMessageId: string;
      from: string;
      /** Our address it was sent to. */
      to: string;
      text: string;
    }
  | { kind: 'blocked' | 'unblocked'; from: string };

export interface ProviderAdapter {
  readonly channel: ProviderChannel;
  /** The provider's name as accounts store it (`twilio`, `fcm`, `apns`, …). */
  readonly provider: string;
  /** Sends one message; never throws for a provider's answer (a thrown error is a bug). */
  send(account: ProviderAccount, message: ProviderMessage): Promise<SendOutcome>;
  /** Whether the callback carries the provider's valid signature for this account. */
  verifySignature(account: ProviderAccount, callback: ProviderCallback): boolean;
  /** The statuses a verified callback reports (none when it is an inbound message). */
  parseStatus(callback: ProviderCallback): StatusUpdate[];
  /** The inbound messages a verified callback carries (none when it is a status). */
  parseInbound(callback: ProviderCallback, account: ProviderAccount): InboundProviderMessage[];
  /**
   * A provider that checks the callback URL with a GET before using it (WhatsApp's `hub.challenge`):
   * the body to answer with, or null to refuse (403).
   */
  handshake?(account: ProviderAccount, query: URLSearchParams): string | null;
  /**
   * Tells the provider where to post (Telegram's `setWebhook`), when an account is created or its
   * credentials change; a refusal throws, with a message that names no credential.
   */
  register?(account: ProviderAccount, callbackUrl: string): Promise<void>;
  /** The provider's own limit of messages a second to one address (Telegram: one a chat). */
  readonly perAddressPerSecond?: number;
  /** The reply body of a callback, when the provider expects more than `{}` (TwiML). */
  readonly callbackReply?: { contentType: string; body: string };
}
