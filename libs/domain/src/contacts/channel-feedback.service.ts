// What the messaging area's sends and provider callbacks change on a contact's channel records
// (§17), in the caller's transaction: a provider's verdict on an address, a send's last use, the
// SMS STOP and START keywords, a Telegram chat linked, a contact seen writing to us. The contacts
// area is the one writer of these tables; the rules are channel-feedback.repository.ts's.
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { OrgId } from '../common/org-id';
import { ChannelFeedbackRepository, RecordEffect } from './channel-feedback.repository';

export type { RecordEffect } from './channel-feedback.repository';

@Injectable()
export class ChannelFeedbackService {
  constructor(private readonly records: ChannelFeedbackRepository) {}

  /** What an attempt or a provider's report says of the records holding the address. */
  apply(em: EntityManager, orgId: OrgId, change: RecordEffect): Promise<void> {
    return this.records.apply(em, orgId, change);
  }

  /**
   * A contact opened the bot's deep link of its Telegram record: the record holds the chat and is
   * `active`. False when the record is not the organization's.
   */
  linkTelegramChat(
    em: EntityManager,
    orgId: OrgId,
    recordId: string,
    chatId: string,
    at: Date,
  ): Promise<boolean> {
    return this.records.linkTelegramChat(em, orgId, recordId, chatId, at);
  }

  /** A contact wrote to us on WhatsApp or Telegram; answers how many records it touched. */
  seen(
    em: EntityManager,
    orgId: OrgId,
    channel: 'whatsapp' | 'telegram',
    address: string,
    at: Date,
    unblocked = false,
  ): Promise<number> {
    return this.records.seen(em, orgId, channel, address, at, unblocked);
  }

  /** A STOP from this number: its SMS records are `opted_out`; answers how many moved. */
  optOut(em: EntityManager, orgId: OrgId, phone: string, at: Date): Promise<number> {
    return this.records.optOut(em, orgId, phone, at);
  }

  /** A START or UNSTOP: the number's opted-out records get back their status; how many moved. */
  optIn(em: EntityManager, orgId: OrgId, phone: string, at: Date): Promise<number> {
    return this.records.optIn(em, orgId, phone, at);
  }
}
