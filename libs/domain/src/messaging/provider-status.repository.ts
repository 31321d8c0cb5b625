// A provider's status report for one of our messages (§17), recorded like a delivery attempt: the
// attempt row, the recipient's and the message's status. Reports are idempotent and safe in any
// order: a final status (delivered, bounced, failed) is never moved, and a repeat of the current
// one records nothing.
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { StatusUpdate } from '../channels/provider-adapter';
import { fieldCipher } from '../crypto/field-encryption';
import { query, sql } from '../database/sql';
import type { ChannelEventRef } from './channel-events';
import type { RecipientStatus } from './message.types';

const FINAL: RecipientStatus[] = ['delivered', 'bounced', 'failed', 'suppressed'];

/** What a recorded report changed, for its event. */
export interface RecordedStatus {
  ref: ChannelEventRef;
  status: 'sent' | 'delivered' | 'bounced' | 'failed';
  retryCount: number;
}

@Injectable()
export class ProviderStatusRepository {
  /**
   * Records the report against the organization's message that the provider account sent under
   * this provider id (its row locked meanwhile); null when there is none or nothing changes.
   */
  async record(
    em: EntityManager,
    organizationId: string,
    providerId: string,
    update: StatusUpdate,
    at: Date,
  ): Promise<RecordedStatus | null> {
    if (update.status === 'read') return null;
    const [row] = await query<{
      id: string;
      job_id: string;
      channel: ChannelEventRef['channel'];
      campaign_id: string | null;
      contact_id: string | null;
      tags: string[];
      idx: number;
      address: string;
      status: RecipientStatus;
      retry_count: number;
    }>(
      em,
      sql`SELECT m.id, m.job_id, m.channel, m.campaign_id, m.contact_id, m.tags,
                 r.idx, r.address, r.status, r.retry_count
            FROM message_recipients r JOIN messages m ON m.id = r.message_id
           WHERE r.organization_id = ${organizationId}::uuid
             AND r.provider_message_id = ${update.providerMessageId}
             AND m.organization_id = ${organizationId}::uuid
             AND m.provider_id = ${providerId}::uuid
           FOR UPDATE OF m`,
    );
    if (!row || FINAL.includes(row.status) || row.status === update.status) return null;
    const final = update.status !== 'sent';
    // The report is of the send attempt that got the provider id: it counts the attempts before it.
    const retryCount = Math.max(0, row.retry_count - 1);
    await query(
      em,
      sql`WITH attempt AS (
            INSERT INTO message_attempts (message_id, organization_id, recipient_idx, status,
              smtp_message, provider_code, retry_count, attempted_at)
            VALUES (${row.id}::uuid, ${organizationId}::uuid, ${row.idx}, ${update.status},
              ${update.description ?? null}, ${update.code ?? null}, ${retryCount},
              ${at}::timestamptz)
          ), recipient AS (
            UPDATE message_recipients SET status = ${update.status}, next_attempt_at = NULL
             WHERE organization_id = ${organizationId}::uuid AND message_id = ${row.id}::uuid
               AND idx = ${row.idx}
          )
          UPDATE messages
             SET status = ${update.status}, next_attempt_at = NULL, updated_at = ${at}::timestamptz,
                 completed_at = CASE WHEN ${final} THEN ${at}::timestamptz ELSE completed_at END
           WHERE organization_id = ${organizationId}::uuid AND id = ${row.id}::uuid`,
    );
    return {
      ref: {
        jobId: row.job_id,
        channel: row.channel,
        campaignId: row.campaign_id,
        contactId: row.contact_id,
        tags: row.tags,
        recipient: fieldCipher().decrypt(row.address),
      },
      status: update.status,
      retryCount,
    };
  }
}
