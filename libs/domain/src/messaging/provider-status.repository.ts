// The message a provider's status report is about (§17), found by the provider's id for it, its
// row locked; what the report records is message-attempts.ts's rule.
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { OrgId } from '../common/org-id';
import { fieldCipher } from '../crypto/field-encryption';
import { query, sql } from '../database/sql';
import type { ChannelEventRef } from './channel-events';
import type { ProviderReported } from './message-attempts';
import type { RecipientStatus } from './message.types';

@Injectable()
export class ProviderStatusRepository {
  /**
   * The organization's message that the provider account sent under this provider id, its row
   * locked until the transaction ends; null when there is none.
   */
  async find(
    em: EntityManager,
    organizationId: OrgId,
    providerId: string,
    providerMessageId: string,
  ): Promise<ProviderReported | null> {
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
             AND r.provider_message_id = ${providerMessageId}
             AND m.organization_id = ${organizationId}::uuid
             AND m.provider_id = ${providerId}::uuid
           FOR UPDATE OF m`,
    );
    if (!row) return null;
    return {
      messageId: row.id,
      recipientIdx: row.idx,
      status: row.status,
      retryCount: row.retry_count,
      ref: {
        jobId: row.job_id,
        channel: row.channel,
        campaignId: row.campaign_id,
        contactId: row.contact_id,
        tags: row.tags,
        recipient: fieldCipher().decrypt(row.address),
      },
    };
  }
}
