// The email events (§10) and their payloads: email.sent per recipient of a committed message, one
// outcome event per delivery attempt, email.opened / email.clicked per tracking hit. Payloads never
// carry the message content, the tracking token or a secret; docs/webhooks.md lists their fields.
import type { EventType } from '../events/event-types';
import type { NewEvent } from '../events/events.service';
import { AttemptStatus, isHardBounce } from './delivery-policy';

/** The event of an attempt: every recipient ends with one email.delivered or one email.bounced. */
export function outcomeEventType(status: AttemptStatus): EventType {
  if (status === 'delivered') return 'email.delivered';
  if (status === 'deferred') return 'email.deferred';
  // 5xx, deferred past the retry deadline, or never sent because the address is suppressed.
  return 'email.bounced';
}

/** The message and recipient an email event is about. */
export interface EmailEventRef {
  jobId: string;
  /** RFC 5322 Message-ID, as the send API returned it. */
  messageId: string;
  campaignId: string | null;
  contactId: string | null;
  tags: string[];
  recipient: { email: string; kind: 'to' | 'cc' | 'bcc' };
}

/** One recorded attempt, as the outcome event describes it. */
export interface EmailOutcome {
  status: AttemptStatus;
  smtpCode: number | null;
  smtpMessage: string | null;
  mxHost: string | null;
  /** Attempts before this one. */
  retryCount: number;
  nextAttemptAt: Date | null;
  attemptedAt: Date;
}

export interface EmailEngagement {
  type: 'opened' | 'clicked';
  url: string | null;
  userAgent: string | null;
  remoteIp: string | null;
  occurredAt: Date;
}

function refData(ref: EmailEventRef) {
  return {
    messageId: ref.messageId,
    jobId: ref.jobId,
    recipient: ref.recipient.email,
    recipientType: ref.recipient.kind,
    campaignId: ref.campaignId,
    contactId: ref.contactId,
    tags: ref.tags,
  };
}

export function sentEvent(ref: EmailEventRef, source: string, at: Date): NewEvent {
  return {
    type: 'email.sent',
    data: { ...refData(ref), source, status: 'queued', timestamp: at.toISOString() },
    occurredAt: at,
  };
}

export function outcomeEvent(ref: EmailEventRef, o: EmailOutcome): NewEvent {
  return {
    type: outcomeEventType(o.status),
    data: {
      ...refData(ref),
      status: o.status,
      smtpCode: o.smtpCode,
      smtpResponse: o.smtpMessage,
      mxHost: o.mxHost,
      attempt: o.retryCount + 1,
      bounceType:
        o.status === 'bounced' ? (isHardBounce(o.smtpCode, o.smtpMessage) ? 'hard' : 'soft') : null,
      nextAttemptAt: o.nextAttemptAt?.toISOString() ?? null,
      timestamp: o.attemptedAt.toISOString(),
    },
    occurredAt: o.attemptedAt,
  };
}

export function engagementEvent(ref: EmailEventRef, e: EmailEngagement): NewEvent {
  return {
    type: e.type === 'opened' ? 'email.opened' : 'email.clicked',
    data: {
      ...refData(ref),
      ...(e.type === 'clicked' ? { url: e.url } : {}),
      userAgent: e.userAgent,
      remoteIp: e.remoteIp,
      timestamp: e.occurredAt.toISOString(),
    },
    occurredAt: e.occurredAt,
  };
}
