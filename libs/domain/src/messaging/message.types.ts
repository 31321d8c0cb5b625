// The shapes of the message log (§8): a message, its recipients' delivery states, its attempts,
// as written by the send path and the delivery worker and read by the log.
import type { AttemptStatus } from './delivery-policy';
import type { MessageContent, OutgoingRecipient } from './outgoing-message';

export const MESSAGE_STATUSES = [
  'queued',
  'deferred',
  'delivered',
  'partially_delivered',
  'bounced',
  'failed',
  'suppressed',
] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];
export type RecipientStatus = 'pending' | AttemptStatus;
export type MessageSource = 'api' | 'smtp' | 'campaign';

/** Lease a worker holds on a message while it talks to SMTP servers. */
export const DELIVERY_LEASE_MS = 5 * 60_000;

export interface NewMessage {
  organizationId: string;
  jobId: string;
  messageId: string;
  source: MessageSource;
  senderAddress: string;
  campaignId: string | null;
  contactId: string | null;
  tags: string[];
  trackOpens: boolean;
  trackClicks: boolean;
  content: MessageContent;
  /** The raw RFC 5322 message as submitted over SMTP (stored encrypted, as bytes). */
  raw?: Buffer;
  recipients: OutgoingRecipient[];
  createdAt: Date;
}

export interface RecipientState {
  idx: number;
  kind: 'to' | 'cc' | 'bcc';
  email: string;
  status: RecipientStatus;
  retryCount: number;
  nextAttemptAt: Date | null;
  firstAttemptAt: Date | null;
}

export interface ClaimedRecipient extends RecipientState {
  /**
   * Status of the organization's ContactEmail with this address (matched on the blind index under
   * the current key), or null when there is none.
   */
  contactStatus: string | null;
}

export interface ClaimedMessage {
  id: string;
  organizationId: string;
  jobId: string;
  messageId: string;
  senderAddress: string;
  campaignId: string | null;
  contactId: string | null;
  tags: string[];
  trackOpens: boolean;
  trackClicks: boolean;
  createdAt: Date;
  content: MessageContent;
  /** The raw message of an SMTP submission. */
  raw?: Buffer;
  recipients: ClaimedRecipient[];
}

export interface AttemptRecord {
  recipientIdx: number;
  status: AttemptStatus;
  smtpCode: number | null;
  smtpMessage: string | null;
  mxHost: string | null;
  outboundIp: string | null;
  retryCount: number;
  attemptedAt: Date;
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
  at: Date;
}

export interface MessageSummary {
  id: string;
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
  organizationId: string;
  id: string;
  dispatchSeq: number;
}
