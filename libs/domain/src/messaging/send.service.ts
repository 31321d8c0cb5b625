// The email send API (§8): validates the payload, checks the subscription and the organization
// sending limits, commits the message to PostgreSQL, then queues its delivery (durable first).
import { Injectable, Logger } from '@nestjs/common';
import { monotonicFactory } from 'ulid';
import { Clock } from '../common/clock';
import {
  DomainError,
  ServiceUnavailableError,
  SubscriptionRequiredError,
} from '../errors/domain-errors';
import { SendingLimiter } from '../limits/sending-limiter';
import { resolveSendingLimits } from '../limits/sending-limits';
import { OrganizationService } from '../tenancy/organization.service';
import { domainOf } from './address';
import { EmailDispatcher } from './email-dispatcher';
import { MessageRepository, MessageSource } from './message.repository';
import { prepareOutgoingMessage, SendEmailInput } from './outgoing-message';

export interface SendResult {
  jobId: string;
  messageId: string;
  recipients: string[];
  status: 'queued';
}

const ulid = monotonicFactory();

@Injectable()
export class SendService {
  private readonly logger = new Logger(SendService.name);

  constructor(
    private readonly organizations: OrganizationService,
    private readonly limiter: SendingLimiter,
    private readonly messages: MessageRepository,
    private readonly dispatcher: EmailDispatcher,
    private readonly clock: Clock,
  ) {}

  async send(
    organizationId: string,
    input: SendEmailInput,
    source: MessageSource = 'api',
  ): Promise<SendResult> {
    const prepared = prepareOutgoingMessage(input);
    const org = await this.organizations.get(organizationId);
    if (org.subscriptionStatus === 'canceled' || org.subscriptionStatus === 'past_due') {
      throw new SubscriptionRequiredError('An active subscription is required to send email');
    }
    try {
      await this.limiter.consume(
        organizationId,
        { requests: 1, recipients: prepared.recipients.length },
        { limits: resolveSendingLimits(org) },
      );
    } catch (err) {
      if (err instanceof DomainError) throw err;
      // Fail closed: without the counters nobody can tell whether the organization has budget.
      this.logger.warn({ msg: 'sending limits unavailable', err: (err as Error).message });
      throw new ServiceUnavailableError('Sending is temporarily unavailable', 5);
    }

    const now = this.clock.now();
    const id = ulid(now.getTime());
    const jobId = `job_${id}`;
    const messageId = `<${id}@${domainOf(prepared.content.from.email)}>`;
    const rowId = await this.messages.insert({
      organizationId,
      jobId,
      messageId,
      source,
      senderAddress: prepared.content.from.email,
      campaignId: prepared.campaignId,
      contactId: prepared.contactId,
      tags: prepared.tags,
      trackOpens: prepared.trackOpens,
      trackClicks: prepared.trackClicks,
      content: prepared.content,
      recipients: prepared.recipients,
      createdAt: now,
    });
    // Committed: from here the message is the sweeper's to recover if Redis loses the job.
    await this.dispatcher.enqueue(rowId, 0);
    return {
      jobId,
      messageId,
      recipients: prepared.recipients.map((r) => r.email),
      status: 'queued',
    };
  }
}
