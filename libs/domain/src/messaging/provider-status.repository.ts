// A provider's status report for one of our messages (§17), found by the provider's id for it and
// recorded through the log's report writer. Reports are idempotent and safe in any order: a final
// status (delivered, bounced, failed) is never moved, and a repeat of the current one records
// nothing.
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { StatusUpdate } from '../channels/provider-adapter';
import { fieldCipher } from '../crypto/field-encryption';
import { query, sql } from '../database/sql';
import type { ChannelEventRef } from './channel-events';
import { MessageReportsRepository } from './message-reports.repository';
import type { RecipientStatus } from './message.types';

const FINAL: RecipientStatus[] = ['delivered', 'bounced', 'failed', 'suppressed'];

/** What a recorded report changed, for its event. */
export interface RecordedStatus {
  ref: ChannelEventRef;
  status: 'sent' | 'delivered' | 'bounced' | 'failed';
  retryCount: number;
}

/** The message and recipient a provider's report is about. */
export interface ReportedMessage {
  messageId: string;
  recipientIdx: number;
  status: RecipientStatus;
  retryCount: number;
  ref: ChannelEventRef;
}

@Injectable()
export class ProviderStatusRepository {
  constructor(private readonly reports: MessageReportsRepository) {}

  /**
   * The organization's message that the provider account sent under this provider id, its row
   * locked until the transaction ends; null when there is none.
   */
  async find(
    em: EntityManager,
    organizationId: string,
    providerId: string,
    providerMessageId: string,
  ): Promise<ReportedMessage | null> {
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

  /**
   * Records a status report against the message found (see `find`); null when nothing changes:
   * a final status stays, a repeat of the current one records nothing.
   */
  async record(
    em: EntityManager,
    organizationId: string,
    found: ReportedMessage,
    update: StatusUpdate & { status: RecordedStatus['status'] },
    at: Date,
  ): Promise<RecordedStatus | null> {
    if (FINAL.includes(found.status) || found.status === update.status) return null;
    // The report is of the send attempt that got the provider id: it counts the attempts before it.
    const retryCount = Math.max(0, found.retryCount - 1);
    await this.reports.record(em, organizationId, {
      messageId: found.messageId,
      recipientIdx: found.recipientIdx,
      attempt: {
        status: update.status,
        smtpMessage: update.description ?? null,
        providerCode: update.code ?? null,
        retryCount,
        attemptedAt: at,
      },
      movesFrom:
        update.status === 'sent' ? ['pending', 'deferred'] : ['pending', 'deferred', 'sent'],
    });
    return { ref: found.ref, status: update.status, retryCount };
  }
}
