// What sending beyond email changes on a contact's channel records (§17), written in the
// transaction that records the attempt or the inbound message it follows from: a push token the
// provider no longer knows becomes `expired` (push.token_invalidated, reason `provider`), an
// accepted send is the record's last use, and the STOP and START keywords move an SMS number's
// consent (contact.unsubscribed on the way out).
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { AddressEffect, ProviderChannel } from '../channels/provider-adapter';
import { blindIndexCandidatesOf } from '../contacts/blind-index';
import { query, sql } from '../database/sql';
import { Events, NewEvent } from '../events/events.service';

export interface RecordEffect {
  channel: ProviderChannel;
  /** The channel's own address as the message named it. */
  address: string;
  effect: 'used' | AddressEffect;
  at: Date;
}

@Injectable()
export class ChannelRecordsRepository {
  constructor(private readonly events: Events) {}

  async apply(em: EntityManager, organizationId: string, change: RecordEffect): Promise<void> {
    if (change.channel === 'push') {
      const hashes = blindIndexCandidatesOf('token', change.address);
      if (change.effect === 'used') {
        await query(
          em,
          sql`UPDATE contact_push SET last_used_at = ${change.at}::timestamptz
               WHERE organization_id = ${organizationId}::uuid
                 AND device_token_hash = ANY(${hashes}::text[])`,
        );
        return;
      }
      const expired = await query<{ id: string; contact_id: string; platform: string }>(
        em,
        sql`UPDATE contact_push SET status = 'expired', updated_at = ${change.at}::timestamptz
             WHERE organization_id = ${organizationId}::uuid
               AND device_token_hash = ANY(${hashes}::text[]) AND status <> 'expired'
            RETURNING id, contact_id, platform`,
      );
      await this.events.emit(
        em,
        organizationId,
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
    if (change.channel === 'sms' && change.effect === 'invalid') {
      await query(
        em,
        sql`UPDATE contact_sms SET status = 'invalid', updated_at = ${change.at}::timestamptz
             WHERE organization_id = ${organizationId}::uuid
               AND phone_hash = ANY(${blindIndexCandidatesOf('phone', change.address)}::text[])
               AND status NOT IN ('invalid', 'opted_out')`,
      );
    }
  }

  /**
   * A STOP from this number: every SMS record of the organization with it is `opted_out`, keeping
   * the status it had for a later START; one contact.unsubscribed per contact that was not yet.
   */
  async optOut(
    em: EntityManager,
    organizationId: string,
    phone: string,
    at: Date,
  ): Promise<number> {
    const rows = await query<{ contact_id: string }>(
      em,
      sql`UPDATE contact_sms
             SET status_before_opt_out = status, status = 'opted_out',
                 opted_out_at = ${at}::timestamptz, updated_at = ${at}::timestamptz
           WHERE organization_id = ${organizationId}::uuid
             AND phone_hash = ANY(${blindIndexCandidatesOf('phone', phone)}::text[])
             AND status <> 'opted_out'
          RETURNING contact_id`,
    );
    const contacts = [...new Set(rows.map((r) => r.contact_id))];
    await this.events.emit(
      em,
      organizationId,
      contacts.map((contactId) => ({
        type: 'contact.unsubscribed',
        data: { contactId, contactListId: null, channel: 'sms', reason: 'stop_keyword' },
        occurredAt: at,
      })),
    );
    return rows.length;
  }

  /** A START or UNSTOP: the number's opted-out records get back the status they had. */
  async optIn(em: EntityManager, organizationId: string, phone: string, at: Date): Promise<number> {
    const rows = await query<{ id: string }>(
      em,
      sql`UPDATE contact_sms
             SET status = coalesce(status_before_opt_out, 'unverified'),
                 status_before_opt_out = NULL, opted_out_at = NULL,
                 updated_at = ${at}::timestamptz
           WHERE organization_id = ${organizationId}::uuid
             AND phone_hash = ANY(${blindIndexCandidatesOf('phone', phone)}::text[])
             AND status = 'opted_out'
          RETURNING id`,
    );
    return rows.length;
  }
}
