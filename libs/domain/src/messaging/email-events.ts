// The single exit for email events (§10): email.sent when a message is committed, one outcome
// event per delivery attempt (email.delivered, email.deferred, email.bounced) in the transaction
// that records it, and email.opened / email.clicked after a tracking hit. Data shapes are in
// docs/webhooks.md; they never carry the message content, the tracking token or a secret.
import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { WebhookEventType } from '../webhooks/webhook-event-types';
import { WebhookEvent, WebhookEvents } from '../webhooks/webhook-events';
import { AttemptStatus, isHardBounce } from './delivery-policy';

/** Events of delivery outcomes: an endpoint subscribed to none of them needs no outcome data. */
export const EMAIL_OUTCOME_EVENT_TYPES: WebhookEventType[] = [
  'email.delivered',
  'email.deferred',
  'email.bounced',
];

/** The event of an attempt: every recipient ends with one email.delivered or one email.bounced. */
export function outcomeEventType(status: AttemptStatus): WebhookEventType {
  if (status === 'delivered') return 'email.delivered';
  if (status === 'deferred') return 'email.deferred';
  // 5xx, deferred past the retry deadline, or never sent because the address is suppressed.
  return 'email.bounced';
}

/** The message and recipient an email event is about. */
export interface EmailEventRef {
  organizationId: string;
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

export function sentEvent(ref: EmailEventRef, source: string, at: Date): WebhookEvent {
  return {
    organizationId: ref.organizationId,
    type: 'email.sent',
    data: { ...refData(ref), source, status: 'queued', timestamp: at.toISOString() },
    occurredAt: at,
  };
}

export function outcomeEvent(ref: EmailEventRef, o: EmailOutcome): WebhookEvent {
  return {
    organizationId: ref.organizationId,
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

export function engagementEvent(ref: EmailEventRef, e: EmailEngagement): WebhookEvent {
  return {
    organizationId: ref.organizationId,
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

/** Engagement events raised at once beyond this many (a webhook-store outage) are dropped. */
const MAX_PENDING_ENGAGEMENTS = 1000;

@Injectable()
export class EmailEvents implements OnModuleDestroy {
  private readonly logger = new Logger(EmailEvents.name);
  private readonly pending = new Set<Promise<void>>();

  constructor(private readonly webhooks: WebhookEvents) {}

  /** Stores events in the caller's transaction: they exist exactly when its changes do. */
  async within(em: EntityManager, events: WebhookEvent[]): Promise<void> {
    await this.webhooks.emitManyWithin(em, events);
  }

  /** `within` for a caller that writes its changes and the events in one statement. */
  withinStatement(
    events: WebhookEvent[],
    params: unknown[],
    when?: string,
  ): { deliveries: string; probe: string } {
    return this.webhooks.manyWithinStatement(events, params, when);
  }

  /**
   * An open or click, raised apart from the request that reported it: the pixel and the redirect
   * never wait for the webhook store, nor fail with it. `ref` loads the message (null: it is gone).
   */
  engaged(
    organizationId: string,
    ref: () => Promise<EmailEventRef | null>,
    engagement: EmailEngagement,
  ): void {
    if (this.pending.size >= MAX_PENDING_ENGAGEMENTS) {
      this.logger.warn({ msg: 'email engagement event dropped: too many pending', organizationId });
      return;
    }
    const task: Promise<void> = (async () => {
      const r = await ref();
      if (r) {
        const e = engagementEvent(r, engagement);
        await this.webhooks.emit(organizationId, e.type, e.data);
      }
    })()
      .catch((err: Error) =>
        this.logger.warn({
          msg: 'email engagement event not raised',
          organizationId,
          type: engagement.type,
          err: err.message,
        }),
      )
      .finally(() => this.pending.delete(task));
    this.pending.add(task);
  }

  /** Engagement events under way finish before the database connections close. */
  async onModuleDestroy(): Promise<void> {
    await Promise.allSettled([...this.pending]);
  }
}
