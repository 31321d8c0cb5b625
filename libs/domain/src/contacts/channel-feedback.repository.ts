// The SQL of what sending beyond email changes on a contact's channel records (§17), written in
// the transaction that records the attempt or the inbound message it follows from: a push token
// the provider has dropped becomes `expired` (push.token_invalidated, reason `provider`), an
// address the provider refuses for good becomes `invalid` or `blocked`, an accepted send is the
// record's last use, the STOP and START keywords move an SMS number's consent (contact.unsubscribed
// on the way out), and a Telegram record gets its chat when the contact opens the bot's link.
// Other areas reach it through ChannelFeedbackService.
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { AddressEffect, ProviderChannel } from '../channels/provider-adapter';
import { CHANNEL_RECORDS } from '../channels/channel-message';
import type { OrgId } from '../common/org-id';
import { fieldCipher } from '../crypto/field-encryption';
import { query, raw, sql } from '../database/sql';
import { Events, NewEvent } from '../events/events.service';
import { blindIndexCandidatesOf, blindIndexOf } from './blind-index';

/**
 * What a provider's answer about an address does to the records holding it (push tokens are
 * expired with their event, below): the status they get, unless they already have one listed.
 */
const ADDRESS_MARKS: Record<
  ProviderChannel,
  Partial<Record<AddressEffect, { status: string; unless?: string[] }>>
> = {
  sms: { invalid: { status: 'invalid', unless: ['opted_out'] } },
  // WhatsApp records know no `invalid`: a number that cannot be reached there is `blocked`.
  whatsapp: { invalid: { status: 'blocked' }, blocked: { status: 'blocked' } },
  telegram: {
    invalid: { status: 'inactive', unless: ['blocked'] },
    blocked: { status: 'blocked' },
  },
  imessage: { invalid: { status: 'invalid' } },
  push: {},
};

export interface RecordEffect {
  channel: ProviderChannel;
  /** The channel's own address as the message named it. */
  address: string;
  effect: 'used' | AddressEffect;
  at: Date;
}

@Injectable()
export class ChannelFeedbackRepository {
  constructor(private readonly events: Events) {}

  async apply(em: EntityManager, orgId: OrgId, change: RecordEffect): Promise<void> {
    if (change.channel === 'push') {
      const hashes = blindIndexCandidatesOf('token', change.address);
      if (change.effect === 'used') {
        await query(
          em,
          sql`UPDATE contact_push SET last_used_at = ${change.at}::timestamptz
               WHERE organization_id = ${orgId}::uuid
                 AND device_token_hash = ANY(${hashes}::text[])`,
        );
        return;
      }
      const expired = await query<{ id: string; contact_id: string; platform: string }>(
        em,
        sql`UPDATE contact_push SET status = 'expired', updated_at = ${change.at}::timestamptz
             WHERE organization_id = ${orgId}::uuid
               AND device_token_hash = ANY(${hashes}::text[]) AND status <> 'expired'
            RETURNING id, contact_id, platform`,
      );
      await this.events.emit(
        em,
        orgId,
        expired.map((p): NewEvent => ({
          type: 'push.token_invalidated',
          data: {
            contactId: p.contact_id,
            pushNotificationId: p.id,
            platform: p.platform,
            status: 'expired',
            reason: 'provider',
          },
          occurredAt: change.at,
        })),
      );
      return;
    }
    if (change.effect === 'used') return;
    const mark = ADDRESS_MARKS[change.channel][change.effect];
    if (!mark) return;
    const r = CHANNEL_RECORDS[change.channel];
    await query(
      em,
      sql`UPDATE ${raw(r.table)} SET status = ${mark.status}, updated_at = ${change.at}::timestamptz
           WHERE organization_id = ${orgId}::uuid
             AND ${raw(r.hash)} = ANY(${blindIndexCandidatesOf(r.kind, change.address)}::text[])
             AND status <> ALL(${[mark.status, ...(mark.unless ?? [])]}::text[])`,
    );
  }

  /**
   * A contact opened the bot's deep link of its Telegram record: the record now holds the chat
   * (the address messages go to) and is `active`. False when the record is not the organization's.
   */
  async linkTelegramChat(
    em: EntityManager,
    orgId: OrgId,
    recordId: string,
    chatId: string,
    at: Date,
  ): Promise<boolean> {
    const cipher = fieldCipher();
    const rows = await query<{ id: string }>(
      em,
      sql`UPDATE contact_telegram
             SET chat_id = ${cipher.encrypt(chatId)}, chat_id_hash = ${blindIndexOf('token', chatId)},
                 status = 'active', last_active_at = ${at}::timestamptz,
                 updated_at = ${at}::timestamptz
           WHERE organization_id = ${orgId}::uuid AND id = ${recordId}::uuid
          RETURNING id`,
    );
    return rows.length > 0;
  }

  /**
   * A contact wrote to us on WhatsApp or Telegram: its records of that address were last seen
   * now (WhatsApp's 24-hour customer-service window opens), and a Telegram chat that unblocked the
   * bot is `active` again.
   */
  async seen(
    em: EntityManager,
    orgId: OrgId,
    channel: 'whatsapp' | 'telegram',
    address: string,
    at: Date,
    unblocked = false,
  ): Promise<number> {
    const r = CHANNEL_RECORDS[channel];
    const hashes = blindIndexCandidatesOf(r.kind, address);
    const rows = await query<{ id: string }>(
      em,
      channel === 'whatsapp'
        ? sql`UPDATE contact_whatsapp SET last_seen_at = ${at}::timestamptz
               WHERE organization_id = ${orgId}::uuid
                 AND phone_hash = ANY(${hashes}::text[])
              RETURNING id`
        : sql`UPDATE contact_telegram
                 SET last_active_at = ${at}::timestamptz,
                     status = CASE WHEN ${unblocked} AND status = 'blocked' THEN 'active'
                                   ELSE status END,
                     updated_at = ${at}::timestamptz
               WHERE organization_id = ${orgId}::uuid
                 AND chat_id_hash = ANY(${hashes}::text[])
              RETURNING id`,
    );
    return rows.length;
  }

  /**
   * A STOP from this number: every SMS record of the organization with it is `opted_out`, keeping
   * the status it had for a later START; one contact.unsubscribed per contact that was not yet.
   */
  async optOut(em: EntityManager, orgId: OrgId, phone: string, at: Date): Promise<number> {
    const rows = await query<{ contact_id: string }>(
      em,
      sql`UPDATE contact_sms
             SET status_before_opt_out = status, status = 'opted_out',
                 opted_out_at = ${at}::timestamptz, updated_at = ${at}::timestamptz
           WHERE organization_id = ${orgId}::uuid
             AND phone_hash = ANY(${blindIndexCandidatesOf('phone', phone)}::text[])
             AND status <> 'opted_out'
          RETURNING contact_id`,
    );
    const contacts = [...new Set(rows.map((r) => r.contact_id))];
    await this.events.emit(
      em,
      orgId,
      contacts.map((contactId) => ({
        type: 'contact.unsubscribed',
        data: { contactId, contactListId: null, channel: 'sms', reason: 'stop_keyword' },
        occurredAt: at,
      })),
    );
    return rows.length;
  }

  /** A START or UNSTOP: the number's opted-out records get back the status they had. */
  async optIn(em: EntityManager, orgId: OrgId, phone: string, at: Date): Promise<number> {
    const rows = await query<{ id: string }>(
      em,
      sql`UPDATE contact_sms
             SET status = coalesce(status_before_opt_out, 'unverified'),
                 status_before_opt_out = NULL, opted_out_at = NULL,
                 updated_at = ${at}::timestamptz
           WHERE organization_id = ${orgId}::uuid
             AND phone_hash = ANY(${blindIndexCandidatesOf('phone', phone)}::text[])
             AND status = 'opted_out'
          RETURNING id`,
    );
    return rows.length;
  }
}
