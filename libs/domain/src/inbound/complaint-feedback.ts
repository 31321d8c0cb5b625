// Feedback-loop complaints (§14, RFC 5965 `Feedback-Type: abuse`): the recipient a signed
// reference names (feedback-rules.ts) marked one of our messages as spam. Its ContactEmail becomes `complained` (never sent to again), the contact leaves
// every list, and email.complained is raised, all in one transaction; the `complained` engagement
// event follows the commit.
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { ContactEmailService } from '../contacts/contact-email.service';
import { Events } from '../events/events.service';
import type { FeedbackMessage, FeedbackRecipient } from '../messaging/message-attempts';
import { UnsubscribeService } from '../unsubscribe/unsubscribe.service';
import type { InboundOutcome } from './inbound-message.sweeper';
import type { FeedbackFields } from './mail-report';

/** Feedback types that are a recipient's complaint; the others (`not-spam`, …) are dropped. */
export const COMPLAINT_TYPES = ['abuse'];

export interface ComplaintResult extends InboundOutcome {
  /** The recipient complained about, for the engagement event after the commit. */
  recipient: FeedbackRecipient | null;
}

@Injectable()
export class ComplaintFeedback {
  constructor(
    private readonly contactEmails: ContactEmailService,
    private readonly unsubscribes: UnsubscribeService,
    private readonly events: Events,
  ) {}

  async apply(
    em: EntityManager,
    message: FeedbackMessage,
    feedback: FeedbackFields,
    recipient: FeedbackRecipient,
    at: Date,
  ): Promise<ComplaintResult> {
    const org = message.organizationId;
    if (!COMPLAINT_TYPES.includes(feedback.feedbackType)) {
      return { outcome: `ignored:${feedback.feedbackType}`, organizationId: org, recipient: null };
    }
    const email = await this.contactEmails.recordComplaint(org, recipient.email, at, em);
    const contactId = email?.contactId ?? message.contactId;
    const lists = contactId
      ? await this.unsubscribes.unsubscribeEverywhere(em, org, contactId, at)
      : [];
    await this.events.emit(em, org, [
      {
        type: 'email.complained',
        data: {
          messageId: message.messageId,
          jobId: message.jobId,
          recipient: recipient.email,
          recipientType: recipient.kind,
          campaignId: message.campaignId,
          contactId: message.contactId,
          tags: message.tags,
          feedbackType: feedback.feedbackType,
          reportedBy: feedback.userAgent,
          unsubscribedFrom: lists,
          timestamp: at.toISOString(),
        },
        occurredAt: at,
      },
    ]);
    return { outcome: 'complained', organizationId: org, recipient };
  }
}
