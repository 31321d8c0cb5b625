// Delivery status notifications (§14, RFC 3464): the per-recipient report that concerns the
// recipient a signed reference names (feedback-rules.ts) becomes an attempt on its message.
// `failed` with a 5.x.x status is a bounce (counted on the ContactEmail; a hard one, 5.1.x or
// 5.2.1, sets it `bounced`), `delayed` or a 4.x.x status a deferral only; each raises its email.*
// event in the same transaction.
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { cleanSmtpMessage, replyCode } from '../messaging/delivery-policy';
import { outcomeEvent } from '../messaging/email-events';
import type {
  FeedbackMessage,
  FeedbackRecipient,
  ReportedAttempt,
} from '../messaging/message-attempts';
import { MessageAttemptsService } from '../messaging/message-attempts.service';
import type { InboundOutcome } from './inbound-message.sweeper';
import type { DsnRecipient } from './mail-report';

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

@Injectable()
export class BounceFeedback {
  constructor(private readonly attempts: MessageAttemptsService) {}

  /** Records the report's attempt on `recipient` in `em`; `unrecorded` when it says nothing to record. */
  async apply(
    em: EntityManager,
    message: FeedbackMessage,
    recipient: FeedbackRecipient,
    report: DsnRecipient,
    at: Date,
  ): Promise<InboundOutcome> {
    const org = message.organizationId;
    const outcome = dsnOutcome(report);
    if (!outcome) return { outcome: 'unrecorded', organizationId: org };
    const attempt = {
      status: outcome.status,
      smtpCode: replyCode(report.diagnostic),
      smtpMessage: cleanSmtpMessage(report.diagnostic ?? `Status ${report.status ?? 'unknown'}`),
      mxHost: report.remoteMta,
      retryCount: recipient.retryCount,
      attemptedAt: at,
    } satisfies ReportedAttempt;
    const bounced = attempt.status === 'bounced';
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
    if (bounced) data.bounceType = outcome.hard ? 'hard' : 'soft';
    // A bounce also moves a `delivered` recipient to `bounced` (and the finished message with it).
    await this.attempts.recordReport(em, org, {
      messageId: message.id,
      recipientIdx: recipient.idx,
      attempt,
      movesFrom: bounced ? ['delivered'] : [],
      bounces: bounced ? [{ email: recipient.email, hard: outcome.hard }] : [],
      recordEffect: null,
      events: [{ type: event.type, data, occurredAt: at }],
    });
    return { outcome: attempt.status, organizationId: org };
  }
}
