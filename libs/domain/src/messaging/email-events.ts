// The single exit for email events (§10): email.sent when a message is committed, one outcome
// event per delivery attempt (email.delivered, email.deferred, email.bounced) in the transaction
// that records it, and email.opened / email.clicked stored before the tracking hit answers. Data
// shapes are in docs/webhooks.md; they never carry the message content, the tracking token or a
// secret.
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { MicroBatcher } from '../common/micro-batcher';
import type { EventType } from '../events/event-types';
import { WebhookEvent, WebhookEvents } from '../webhooks/webhook-events';
import { AttemptStatus, isHardBounce } from './delivery-policy';

/** Events of delivery outcomes: an endpoint subscribed to none of them needs no outcome data. */
export const EMAIL_OUTCOME_EVENT_TYPES: EventType[] = [
  'email.delivered',
  'email.deferred',
  'email.bounced',
];

/** The event of an attempt: every recipient ends with one email.delivered or one email.bounced. */
export function outcomeEventType(status: AttemptStatus): EventType {
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

@Injectable()
export class EmailEvents {
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
   * An open or click: its deliveries are stored (durable) when this resolves, so the hit answers
   * after that. `ref` loads the message and recipient, null when gone or when no active endpoint
   * subscribes to the event (nothing to store). Hits arriving together share one statement.
   */
  async engaged(
    ref: () => Promise<EmailEventRef | null>,
    engagement: EmailEngagement,
  ): Promise<void> {
    const r = await ref();
    if (r) await this.engagements.push(engagementEvent(r, engagement));
  }

  private readonly engagements = new MicroBatcher<WebhookEvent, void>(
    async (events) => {
      await this.webhooks.emitMany(events);
      return events.map(() => undefined);
    },
    async (event) => {
      await this.webhooks.emitMany([event]);
    },
  );
}
