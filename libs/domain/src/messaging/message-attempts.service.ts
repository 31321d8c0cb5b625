// Where every attempt of a message is recorded (§8, §14, §17), whatever produced it: a delivery
// run (MessageService.record), a bounce or delay report mailed back (inbound), a provider's status
// callback (MessageService.recordStatus). In the caller's transaction: the attempts and the
// status moves in one statement per batch, the bounces on the ContactEmails, the channel record's
// change, and the webhook events.
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { OrgId } from '../common/org-id';
import { ChannelFeedbackService } from '../contacts/channel-feedback.service';
import { ContactEmailService } from '../contacts/contact-email.service';
import { Events } from '../events/events.service';
import {
  AttemptsRecord,
  FeedbackMessage,
  MessageReference,
  MessageReport,
  reportWrite,
} from './message-attempts';
import { MessageAttemptsRepository } from './message-attempts.repository';

@Injectable()
export class MessageAttemptsService {
  constructor(
    private readonly attempts: MessageAttemptsRepository,
    private readonly contactEmails: ContactEmailService,
    private readonly channelRecords: ChannelFeedbackService,
    private readonly events: Events,
  ) {}

  /**
   * Records the organization's records in `em`'s transaction, in order: their rows (one
   * statement), each one's bounces and channel record change, then their events. Answers per
   * record its message's dispatch sequence (0 when the message row is left alone).
   */
  async record(em: EntityManager, orgId: OrgId, records: AttemptsRecord[]): Promise<number[]> {
    const writes = records.some((r) => r.attempts.length || r.recipients.length || r.message);
    const seqs = writes ? await this.attempts.record(em, orgId, records) : records.map(() => 0);
    for (const r of records) {
      if (r.bounces.length) await this.contactEmails.recordBounces(em, orgId, r.bounces, r.at);
      if (r.recordEffect) await this.channelRecords.apply(em, orgId, r.recordEffect);
    }
    await this.events.emit(
      em,
      orgId,
      records.flatMap((r) => r.events),
    );
    return seqs;
  }

  /**
   * Records a report about a recipient after its delivery run, in `em`'s transaction. The message
   * row is locked first, so a concurrent report or delivery run waits. Answers whether the
   * recipient moved, or null when the message is gone (its bounces and events are recorded all
   * the same).
   */
  async recordReport(
    em: EntityManager,
    orgId: OrgId,
    report: MessageReport,
  ): Promise<{ moved: boolean } | null> {
    const locked = await this.attempts.lockForReport(em, orgId, report.messageId);
    const change = locked && reportWrite(locked, report);
    const write = change?.write ?? {
      messageId: report.messageId,
      attempts: [],
      recipients: [],
      message: null,
    };
    await this.record(em, orgId, [
      {
        ...write,
        bounces: report.bounces,
        recordEffect: report.recordEffect,
        events: report.events,
        at: report.attempt.attemptedAt,
      },
    ]);
    return change && { moved: change.moved };
  }

  /** The message a signed reference names (a VERP token's row id, an unsubscribe token's job). */
  findReferenced(ref: MessageReference): Promise<FeedbackMessage | null> {
    return this.attempts.findReferenced(ref);
  }
}
