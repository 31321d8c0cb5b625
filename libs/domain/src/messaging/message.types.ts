// The shapes of the message log (§8): a message, its recipients' delivery states, its attempts,
// as written by the send path and the delivery worker and read by the log.
import type { ChannelContent } from '../channels/channel-message';
import type { OrgId } from '../common/org-id';
import type { AddressEffect, ProviderChannel } from '../channels/provider-adapter';
import type { AttemptStatus } from './delivery-policy';
import type { MessageContent, OutgoingRecipient } from './outgoing-message';

/** Every channel a message goes out on: email over SMTP, the others through a provider account. */
export const MESSAGE_CHANNELS = [
  'email',
  'sms',
  'whatsapp',
  'telegram',
  'push',
  'imessage',
] as const;
export type MessageChannel = (typeof MESSAGE_CHANNELS)[number];

export const MESSAGE_STATUSES = [
  'queued',
  'deferred',
  'sent',
  'delivered',
  'partially_delivered',
  'bounced',
  'failed',
  'suppressed',
] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];
export type RecipientStatus = 'pending' | AttemptStatus;
export type MessageSource = 'api' | 'smtp' | 'campaign';

interface NewMessageBase {
  organizationId: OrgId;
  jobId: string;
  messageId: string;
  source: MessageSource;
  senderAddress: string;
  campaignId: string | null;
  contactId: string | null;
  tags: string[];
  trackOpens: boolean;
  trackClicks: boolean;
  recipients: OutgoingRecipient[];
  createdAt: Date;
}

export interface NewEmailMessage extends NewMessageBase {
  channel: 'email';
  content: MessageContent;
  /** The raw RFC 5322 message as submitted over SMTP (stored encrypted, as bytes). */
  raw?: Buffer;
}

/** A message beyond email: one recipient, the channel's own address in `recipients[0].email`. */
export interface NewChannelMessage extends NewMessageBase {
  channel: ProviderChannel;
  providerId: string;
  content: ChannelContent;
}

export type NewMessage = NewEmailMessage | NewChannelMessage;

export interface RecipientState {
  idx: number;
  kind: 'to' | 'cc' | 'bcc';
  email: string;
  status: RecipientStatus;
  retryCount: number;
  nextAttemptAt: Date | null;
  firstAttemptAt: Date | null;
  /** The provider's id of the message to this recipient, once it accepted it (§17). */
  providerMessageId?: string | null;
}

export interface ClaimedRecipient extends RecipientState {
  /**
   * Status of the organization's ContactEmail with this address (matched on the blind index under
   * the current key), or null when there is none.
   */
  contactStatus: string | null;
}

interface ClaimedBase {
  id: string;
  organizationId: OrgId;
  jobId: string;
  messageId: string;
  senderAddress: string;
  campaignId: string | null;
  contactId: string | null;
  tags: string[];
  trackOpens: boolean;
  trackClicks: boolean;
  createdAt: Date;
  recipients: ClaimedRecipient[];
}

export interface ClaimedEmail extends ClaimedBase {
  channel: 'email';
  content: MessageContent;
  /** The raw message of an SMTP submission. */
  raw?: Buffer;
}

/**
 * A message beyond email; its recipient's `contactStatus` is the status of the organization's
 * channel record with that address (the one that forbids sending, when several do).
 */
export interface ClaimedChannelMessage extends ClaimedBase {
  channel: ProviderChannel;
  /** Null when the message was stored without one (never by the send path). */
  providerId: string | null;
  content: ChannelContent;
}

export type ClaimedMessage = ClaimedEmail | ClaimedChannelMessage;

export interface AttemptRecord {
  recipientIdx: number;
  status: AttemptStatus;
  smtpCode: number | null;
  smtpMessage: string | null;
  mxHost: string | null;
  outboundIp: string | null;
  retryCount: number;
  attemptedAt: Date;
  /** A provider's own error code (channels beyond email). */
  providerCode?: string | null;
  /** SMS segments the provider bills for this attempt. */
  segments?: number | null;
}

/** A message's status and next due time once a delivery run is recorded. */
export interface RunOutcome {
  status: MessageStatus;
  nextAttemptAt: Date | null;
  completedAt: Date | null;
}

/** What one delivery run of a message changes. */
export interface RunRecord {
  message: ClaimedMessage;
  attempts: AttemptRecord[];
  /** The new states of the recipients attempted. */
  recipients: RecipientState[];
  outcome: RunOutcome;
  /** Bounces to count on the organization's ContactEmails. */
  bounces: { email: string; hard: boolean }[];
  /**
   * What the run says of the recipient's channel record (beyond email): the provider accepted the
   * address (`used`), or told us it is no longer valid (`invalid`: a push token unregistered).
   */
  recordEffect?: 'used' | AddressEffect;
  at: Date;
}

export interface MessageSummary {
  id: string;
  channel: MessageChannel;
  jobId: string;
  messageId: string;
  senderAddress: string;
  campaignId: string | null;
  contactId: string | null;
  status: MessageStatus;
  tags: string[];
  recipients: string[];
  createdAt: Date;
  completedAt: Date | null;
}

export interface MessageListFilters {
  status?: MessageStatus;
  channel?: MessageChannel;
  recipient?: string;
  campaignId?: string;
  from?: Date;
  to?: Date;
}

/** Where a sweep's scan stopped: the due time (microseconds, as text) and id of its last row. */
export interface SweepCursor {
  dueAt: string;
  id: string;
}

/** A message whose delivery job must be queued again, with the sequence of its new job. */
export interface Redispatch {
  organizationId: OrgId;
  id: string;
  dispatchSeq: number;
}
