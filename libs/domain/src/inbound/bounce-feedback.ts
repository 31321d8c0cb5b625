// Delivery status notifications (§14, RFC 3464): each per-recipient report about one of our
// messages becomes an attempt on it. `failed` with a 5.x.x status is a bounce (counted on the
// ContactEmail; a hard one, 5.1.x or 5.2.1, sets it `bounced`), `delayed` or a 4.x.x status a
// deferral only; each raises its email.* event in the same transaction.
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { normaliseEmail } from '../crypto/field-encryption';
import { Events } from '../events/events.service';
import { ContactEmailStatusRepository } from '../messaging/contact-email-status.repository';
import { cleanSmtpMessage, replyCode } from '../messaging/delivery-policy';
import { outcomeEvent } from '../messaging/email-events';
import type { InboundOutcome } from './inbound-message.repository';
import type { DsnRecipient } from './mail-report';
import {
  FeedbackAttempt,
  FeedbackMessage,
  FeedbackRecipient,
  MessageFeedbackRepository,
} from './message-feedback.repository';

/** What one per-recipient report means: a bounce (hard or soft), a deferral, or nothing to record. */
export function dsnOutcome(
  r: Pick<DsnRecipient, 'action' | 'status'>,
): { status: 'bounced' | 'deferred'; hard: boolean } | null {
  const cls = r.status?.[0];
  if (r.action === 'delayed' || (r.action === 'failed' && cls === '4')) {
    return { status: 'deferred', hard: false };
  }
  if (r.action === 'failed' && cls === '5') {
    return { status: 'bounced', hard: /^5\.1\.\d+$/.test(r.status!) || r.status === '5.2.1' };
  }
  return null;
}

/**
 * The message's recipient a report is about: the one a VERP token named, else the one with the
 * reported address, else the message's only recipient.
 */
export function reportedRecipient(
  message: FeedbackMessage,
  address: string | null,
  knownIdx: number | null,
): FeedbackRecipient | null {
  if (knownIdx !== null) return message.recipients.find((r) => r.idx === knownIdx) ?? null;
  const wanted = address ? normaliseEmail(address) : null;
  const same = wanted && message.recipients.find((r) => normaliseEmail(r.email) === wanted);
  if (same) return same;
  return message.recipients.length === 1 ? message.recipients[0] : null;
}

@Injectable()
export class BounceFeedback {
  constructor(
    private readonly messages: MessageFeedbackRepository,
    private readonly contactEmails: ContactEmailStatusRepository,
    private readonly events: Events,
  ) {}

  /** Records the report's attempts in `em`; `unrecorded` when none concerns the message. */
  async apply(
    em: EntityManager,
    message: FeedbackMessage,
    reports: DsnRecipient[],
    knownIdx: number | null,
    at: Date,
  ): Promise<InboundOutcome> {
    const org = message.organizationId;
    const recorded: { attempt: FeedbackAttempt; recipient: FeedbackRecipient; hard: boolean }[] =
      [];
    for (const report of reports) {
      const outcome = dsnOutcome(report);
      const recipient = outcome && reportedRecipient(message, report.recipient, knownIdx);
      if (!outcome || !recipient) continue;
      const attempt: FeedbackAttempt = {
        recipientIdx: recipient.idx,
        status: outcome.status,
        smtpCode: replyCode(report.diagnostic),
        smtpMessage: cleanSmtpMessage(report.diagnostic ?? `Status ${report.status ?? 'unknown'}`),
        mxHost: report.remoteMta,
        retryCount: recipient.retryCount,
        attemptedAt: at,
      };
      await this.messages.recordAttempt(em, org, message, attempt);
      recorded.push({ attempt, recipient, hard: outcome.hard });
    }
    if (!recorded.length) return { outcome: 'unrecorded', organizationId: org };
    const bounces = recorded.filter((r) => r.attempt.status === 'bounced');
    if (bounces.length) {
      await this.contactEmails.recordBounces(
        em,
        org,
        bounces.map((b) => ({ email: b.recipient.email, hard: b.hard })),
        at,
      );
    }
    await this.events.emit(
      em,
      org,
      recorded.map(({ attempt, recipient, hard }) => {
        const event = outcomeEvent(
          {
            jobId: message.jobId,
            messageId: message.messageId,
            campaignId: message.campaignId,
            contactId: message.contactId,
            tags: message.tags,
            recipient: { email: recipient.email, kind: recipient.kind },
          },
          { ...attempt, nextAttemptAt: null },
        );
        const data = event.data as Record<string, unknown>;
        // The DSN's own status decides hard or soft (§14), not the SMTP reply rule of §8.
        if (attempt.status === 'bounced') data.bounceType = hard ? 'hard' : 'soft';
        return { type: event.type, data, occurredAt: at };
      }),
    );
    return { outcome: bounces.length ? 'bounced' : 'deferred', organizationId: org };
  }
}
