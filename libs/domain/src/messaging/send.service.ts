// The email send API (§8): validates the payload and the campaign and contact it names, checks the
// subscription and the organization sending limits, commits the message to PostgreSQL, then queues its delivery (durable first).
import { Injectable, Logger } from '@nestjs/common';
import { ulid } from 'ulid';
import { Clock } from '../common/clock';
import type { OrgId } from '../common/org-id';
import { pooledRandomFraction } from '../crypto/random-pool';
import {
  DomainError,
  NotFoundError,
  ServiceUnavailableError,
  SubscriptionRequiredError,
} from '../errors/domain-errors';
import { SendingLimiter } from '../limits/sending-limiter';
import { resolveSendingLimits } from '../limits/sending-limits';
import { SenderPolicy } from '../sending-domains/sender-policy';
import { OrganizationCache } from '../tenancy/organization-cache';
import { domainOf, Mailbox } from './address';
import { EmailDispatcher } from './email-dispatcher';
import { MessageRepository } from './message.repository';
import { MessageService } from './message.service';
import type { MessageSource } from './message.types';
import { OutgoingMessage, prepareOutgoingMessage, SendEmailInput } from './outgoing-message';

export interface SendResult {
  jobId: string;
  messageId: string;
  recipients: string[];
  status: 'queued';
}

/**
 * A job id's ULID: its time, then 80 fresh random bits, never a successor of another id (§16), so
 * no message's id can be worked out from another's. The log orders by timestamps, not by ids.
 * ulid's default source makes a system call per random character; the pooled CSPRNG serves them
 * from one call per 4 KB.
 */
export function newMessageUlid(at: Date): string {
  return ulid(at.getTime(), pooledRandomFraction);
}

@Injectable()
export class SendService {
  private readonly logger = new Logger(SendService.name);

  constructor(
    private readonly organizations: OrganizationCache,
    private readonly limiter: SendingLimiter,
    private readonly messages: MessageService,
    private readonly references: MessageRepository,
    private readonly dispatcher: EmailDispatcher,
    private readonly clock: Clock,
    private readonly senders: SenderPolicy,
  ) {}

  async send(
    organizationId: OrgId,
    input: SendEmailInput,
    source: MessageSource = 'api',
  ): Promise<SendResult> {
    const prepared = prepareOutgoingMessage(input);
    // A campaign or contact named by a client must be the organization's own (another
    // organization's reads as missing). Fan-out names its own rows and skips the round trip.
    if (source !== 'campaign') {
      const foreign = await this.references.foreignReference(organizationId, prepared);
      if (foreign === 'campaign') throw new NotFoundError('Campaign');
      if (foreign === 'contact') throw new NotFoundError('Contact');
    }
    await this.senders.assertMaySend(organizationId, prepared.content.from.email);
    await this.admit(organizationId, { requests: 1, recipients: prepared.recipients.length });
    return this.commit(organizationId, source, prepared);
  }

  /**
   * The SMTP relay's MAIL FROM (§9, spec Limits rule 5): one transaction is one request and one
   * recipient of the organization's limits, consumed here, before any data is accepted; the
   * check itself is the send API's.
   */
  async admitRelayTransaction(organizationId: OrgId): Promise<void> {
    await this.admit(organizationId, { requests: 1, recipients: 1 });
  }

  /**
   * A message submitted over SMTP, already admitted at MAIL FROM: stored as received (the raw
   * RFC 5322 bytes, encrypted with the rest of the content) for the envelope recipients, then queued.
   */
  async submitRaw(
    organizationId: OrgId,
    input: {
      raw: Buffer;
      envelopeFrom: string;
      recipients: string[];
      from?: Mailbox;
      subject?: string;
    },
  ): Promise<SendResult> {
    const from = input.from ?? { email: input.envelopeFrom };
    await this.senders.assertMaySend(organizationId, from.email);
    const seen = new Set<string>();
    const recipients = input.recipients
      .map((email) => email.trim())
      .filter((email) => email && !seen.has(email.toLowerCase()) && seen.add(email.toLowerCase()))
      .map((email) => ({ kind: 'to' as const, email }));
    return this.commit(organizationId, 'smtp', {
      content: {
        v: 1,
        from,
        to: recipients.map((r) => ({ email: r.email })),
        cc: [],
        bcc: [],
        replyTo: [],
        subject: input.subject ?? '',
        headers: {},
        attachments: [],
      },
      recipients,
      tags: [],
      campaignId: null,
      contactId: null,
      trackOpens: false,
      trackClicks: false,
      raw: input.raw,
    });
  }

  /**
   * Subscription, then the organization sending limits: all windows consumed, or none. Every
   * channel's send path admits through here. The organization is read from the cache that
   * PostgreSQL's notifications keep current, not once per send.
   */
  async admit(
    organizationId: OrgId,
    usage: { requests: number; recipients: number },
  ): Promise<void> {
    const org = await this.organizations.get(organizationId);
    if (org.subscriptionStatus === 'canceled' || org.subscriptionStatus === 'past_due') {
      throw new SubscriptionRequiredError('An active subscription is required to send email');
    }
    try {
      await this.limiter.consume(organizationId, usage, { limits: resolveSendingLimits(org) });
    } catch (err) {
      if (err instanceof DomainError) throw err;
      // Fail closed: without the counters nobody can tell whether the organization has budget.
      this.logger.warn({ msg: 'sending limits unavailable', err: (err as Error).message });
      throw new ServiceUnavailableError('Sending is temporarily unavailable', 5);
    }
  }

  /** Durable first: the message row is committed, then its delivery is queued. */
  private async commit(
    organizationId: OrgId,
    source: MessageSource,
    prepared: OutgoingMessage & { raw?: Buffer },
  ): Promise<SendResult> {
    const now = this.clock.now();
    const id = newMessageUlid(now);
    const jobId = `job_${id}`;
    const messageId = `<${id}@${domainOf(prepared.content.from.email)}>`;
    const rowId = await this.messages.create({
      channel: 'email',
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
      raw: prepared.raw,
      recipients: prepared.recipients,
      createdAt: now,
    });
    // Committed: from here the message is the sweeper's to recover if Redis loses the job.
    // Concurrent sends (API requests, relay DATA completions) share one Redis pipeline.
    await this.dispatcher.enqueueNew(organizationId, rowId);
    return {
      jobId,
      messageId,
      recipients: prepared.recipients.map((r) => r.email),
      status: 'queued',
    };
  }
}
