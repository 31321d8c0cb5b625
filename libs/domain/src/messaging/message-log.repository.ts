// The message log's reads (spec GET /messages, GET /messages/{jobId}): summaries, attempts, and
// the message and recipient an engagement event is about. Every statement is one organization's.
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { OrgId } from '../common/org-id';
import { PageRequest, pageOffset } from '../common/pagination';
import { blindIndexCandidatesOf } from '../contacts/blind-index';
import { fieldCipher } from '../crypto/field-encryption';
import { join, query, sql, Sql } from '../database/sql';
import type { AttemptStatus } from './delivery-policy';
import type { EmailEventRef } from './email-events';
import type {
  AttemptRecord,
  MessageChannel,
  MessageListFilters,
  MessageStatus,
  MessageSummary,
  RecipientState,
} from './message.types';

interface SummaryRow {
  id: string;
  job_id: string;
  message_id: string;
  channel: MessageChannel;
  sender_address: string;
  campaign_id: string | null;
  contact_id: string | null;
  status: MessageStatus;
  tags: string[];
  created_at: Date;
  completed_at: Date | null;
}

const SUMMARY_COLUMNS = sql`m.id, m.job_id, m.message_id, m.channel, m.sender_address, m.campaign_id,
  m.contact_id, m.status, m.tags, m.created_at, m.completed_at`;

function summary(r: SummaryRow, recipients: string[]): MessageSummary {
  return {
    id: r.id,
    channel: r.channel,
    jobId: r.job_id,
    messageId: r.message_id,
    senderAddress: r.sender_address,
    campaignId: r.campaign_id,
    contactId: r.contact_id,
    status: r.status,
    tags: r.tags,
    recipients,
    createdAt: r.created_at,
    completedAt: r.completed_at,
  };
}

@Injectable()
export class MessageLogRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /**
   * One message of the organization by its job id, with its first `limit` attempts (oldest
   * first), read in one snapshot so that its status and its attempts agree; null when absent.
   */
  async findByJobId(
    orgId: OrgId,
    jobId: string,
    limit: number,
  ): Promise<{ summary: MessageSummary; attempts: AttemptRecord[] } | null> {
    return this.ds.transaction('REPEATABLE READ', async (em) => {
      const [row] = await query<SummaryRow>(
        em,
        sql`SELECT ${SUMMARY_COLUMNS} FROM messages m
             WHERE m.organization_id = ${orgId}::uuid AND m.job_id = ${jobId}`,
      );
      if (!row) return null;
      const recipients = await this.recipientAddresses(em, orgId, [row.id]);
      const attempts = await this.attempts(em, orgId, row.id, limit);
      return { summary: summary(row, recipients.get(row.id) ?? []), attempts };
    });
  }

  private async attempts(
    em: EntityManager,
    orgId: OrgId,
    messageId: string,
    limit: number,
  ): Promise<AttemptRecord[]> {
    const rows = await query<{
      recipient_idx: number;
      status: AttemptStatus;
      smtp_code: number | null;
      smtp_message: string | null;
      mx_host: string | null;
      outbound_ip: string | null;
      retry_count: number;
      attempted_at: Date;
      provider_code: string | null;
      segments: number | null;
    }>(
      em,
      sql`SELECT recipient_idx, status, smtp_code, smtp_message, mx_host, outbound_ip,
                 retry_count, attempted_at, provider_code, segments
            FROM message_attempts
           WHERE organization_id = ${orgId}::uuid AND message_id = ${messageId}::uuid
           ORDER BY attempted_at, id
           LIMIT ${limit}`,
    );
    return rows.map((r) => ({
      recipientIdx: r.recipient_idx,
      status: r.status,
      smtpCode: r.smtp_code,
      smtpMessage: r.smtp_message,
      mxHost: r.mx_host,
      outboundIp: r.outbound_ip,
      retryCount: r.retry_count,
      attemptedAt: r.attempted_at,
      providerCode: r.provider_code,
      segments: r.segments,
    }));
  }

  /** One page of the organization's messages, newest first, and how many match in all. */
  async list(
    orgId: OrgId,
    filters: MessageListFilters,
    page: PageRequest,
  ): Promise<{ items: MessageSummary[]; total: number }> {
    const where: Sql[] = [sql`m.organization_id = ${orgId}::uuid`];
    if (filters.status) where.push(sql`m.status = ${filters.status}`);
    if (filters.channel) where.push(sql`m.channel = ${filters.channel}`);
    if (filters.campaignId) where.push(sql`m.campaign_id = ${filters.campaignId}::uuid`);
    if (filters.from) where.push(sql`m.created_at >= ${filters.from}::timestamptz`);
    if (filters.to) where.push(sql`m.created_at <= ${filters.to}::timestamptz`);
    if (filters.recipient) {
      // An address as any channel indexes it: an email, a phone number, a device token.
      const hashes = (['email', 'phone', 'token'] as const).flatMap((kind) =>
        blindIndexCandidatesOf(kind, filters.recipient!),
      );
      where.push(
        sql`EXISTS (SELECT 1 FROM message_recipients r
                     WHERE r.organization_id = ${orgId}::uuid AND r.message_id = m.id
                       AND r.address_hash = ANY(${hashes}::text[]))`,
      );
    }
    const clause = join(where, ' AND ');
    const [{ total }] = await query<{ total: string }>(
      this.ds,
      sql`SELECT count(*) AS total FROM messages m WHERE ${clause}`,
    );
    const rows = await query<SummaryRow>(
      this.ds,
      sql`SELECT ${SUMMARY_COLUMNS} FROM messages m WHERE ${clause}
           ORDER BY m.created_at DESC, m.id DESC
           LIMIT ${page.limit} OFFSET ${pageOffset(page)}`,
    );
    const recipients = await this.recipientAddresses(
      this.ds,
      orgId,
      rows.map((r) => r.id),
    );
    return {
      items: rows.map((r) => summary(r, recipients.get(r.id) ?? [])),
      total: Number(total),
    };
  }

  /**
   * The email and recipient an engagement event is about; null when they are gone, or when the
   * message is not an email (an SMS click is kept in the log; no email.* event is raised for it).
   */
  async eventRef(orgId: OrgId, id: string, recipientIdx: number): Promise<EmailEventRef | null> {
    const [r] = await query<{
      job_id: string;
      message_id: string;
      campaign_id: string | null;
      contact_id: string | null;
      tags: string[];
      kind: RecipientState['kind'];
      address: string;
    }>(
      this.ds,
      sql`SELECT m.job_id, m.message_id, m.campaign_id, m.contact_id, m.tags, r.kind, r.address
            FROM messages m
            JOIN message_recipients r
              ON r.organization_id = m.organization_id AND r.message_id = m.id
           WHERE m.organization_id = ${orgId}::uuid AND m.id = ${id}::uuid
             AND r.idx = ${recipientIdx} AND m.channel = 'email'`,
    );
    if (!r) return null;
    return {
      jobId: r.job_id,
      messageId: r.message_id,
      campaignId: r.campaign_id,
      contactId: r.contact_id,
      tags: r.tags,
      recipient: { email: fieldCipher().decrypt(r.address), kind: r.kind },
    };
  }

  /** Decrypted recipient addresses of the organization's messages, in recipient order. */
  private async recipientAddresses(
    db: DataSource | EntityManager,
    orgId: OrgId,
    ids: string[],
  ): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>();
    if (!ids.length) return out;
    const rows = await query<{ message_id: string; address: string }>(
      db,
      sql`SELECT message_id, address FROM message_recipients
           WHERE organization_id = ${orgId}::uuid AND message_id = ANY(${ids}::uuid[])
           ORDER BY message_id, idx`,
    );
    const cipher = fieldCipher();
    for (const r of rows) {
      const list = out.get(r.message_id) ?? [];
      list.push(cipher.decrypt(r.address));
      out.set(r.message_id, list);
    }
    return out;
  }
}
