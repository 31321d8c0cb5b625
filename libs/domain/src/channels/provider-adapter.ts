// The provider layer (§17): one adapter per provider API, each speaking its provider's wire format
// and nothing else. The send path, the callbacks route and the worker reach every provider through
// this interface; which adapter serves an account is the registry's choice (provider-registry.ts).

/** The channels beyond email that go out through a provider account. */
export const PROVIDER_CHANNELS = ['sms', 'whatsapp', 'telegram', 'push', 'imessage'] as const;
export type ProviderChannel = (typeof PROVIDER_CHANNELS)[number];

/** A provider account as an adapter needs it: decrypted credentials, non-secret settings. */
export interface ProviderAccount {
  id: string;
  organizationId: string;
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
  content: SmsContent | PushContent;
  /** Where the provider posts status callbacks for this message (signed by the provider). */
  statusCallbackUrl: string;
}

/**
 * What a provider answered to a send:
 * - `accepted`: it took the message (`sent`), or reports it delivered already (`delivered`);
 * - `rejected`: it refused this message for good; `permanent` refusals of the address are bounces,
 *   and `invalidAddress` marks the record (push token unregistered, number invalid);
 * - `throttled`: a 429; try again after `retryAfterMs`;
 * - `unavailable`: no answer, a 5xx or a timeout; the message is deferred and retried;
 * - `unauthorized`: the account's credentials were refused (counts toward `failing`).
 */
export type SendOutcome =
  | { kind: 'accepted'; providerMessageId: string; status: 'sent' | 'delivered'; segments?: number }
  | {
      kind: 'rejected';
      permanent: boolean;
      invalidAddress: boolean;
      code: string;
      message: string;
    }
  | { kind: 'throttled'; retryAfterMs: number }
  | { kind: 'unavailable'; message: string }
  | { kind: 'unauthorized'; message: string };

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
}

/** A message a contact sent to one of our numbers or bots. */
export interface InboundProviderMessage {
  providerMessageId: string;
  /** The sender's address (E.164 number, chat id). */
  from: string;
  /** Our address it was sent to. */
  to: string;
  text: string;
}

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
  parseInbound(callback: ProviderCallback): InboundProviderMessage[];
}
