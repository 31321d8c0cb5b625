// The message log's side of bounces and complaints that arrive as mail (§14): finding the message
// a signed reference names, and recording a report's attempt on it. A reference is matched across
// organizations by the row id or job id it names (both unique, both signed by us); every
// statement after that is scoped by the message's organization.
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { fieldCipher } from '../crypto/field-encryption';
import { query, sql } from '../database/sql';
import type { AttemptStatus } from '../messaging/delivery-policy';
import { MessageReportsRepository } from '../messaging/message-reports.repository';
import type { RecipientState } from '../messaging/message.types';
import type { FeedbackReference } from './feedback-rules';

export interface FeedbackRecipient {
  idx: number;
  kind: 'to' | 'cc' | 'bcc';
  email: string;
  status: RecipientState['status'];
  retryCount: number;
}

/** A message of the log as a report about it needs it. */
export interface FeedbackMessage {
  id: string;
  organizationId: string;
  jobId: string;
  messageId: string;
  campaignId: string | null;
  contactId: string | null;
  tags: string[];
  recipients: FeedbackRecipient[];
}

export interface FeedbackAttempt {
  recipientIdx: number;
  status: Extract<AttemptStatus, 'bounced' | 'deferred'>;
  smtpCode: number | null;
  smtpMessage: string | null;
  mxHost: string | null;
  retryCount: number;
  attemptedAt: Date;
}

@Injectable()
export class MessageFeedbackRepository {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly reports: MessageReportsRepository,
  ) {}

  /** The message a signed reference names. */
  async find(ref: FeedbackReference): Promise<FeedbackMessage | null> {
    const byId =
      ref.kind === 'verp' ? sql`m.id = ${ref.messageId}::uuid` : sql`m.job_id = ${ref.jobId}`;
    const rows = await query<{
      id: string;
      organization_id: string;
      job_id: string;
      message_id: string;
      campaign_id: string | null;
      contact_id: string | null;
      tags: string[];
      recipients: {
        idx: number;
        kind: FeedbackRecipient['kind'];
        address: string;
        status: FeedbackRecipient['status'];
        retry_count: number;
      }[];
    }>(
      this.ds,
      sql`SELECT m.id, m.organization_id, m.job_id, m.message_id, m.campaign_id, m.contact_id,
                 m.tags,
                 (SELECT json_agg(json_build_object('idx', r.idx, 'kind', r.kind,
                           'address', r.address, 'status', r.status,
                           'retry_count', r.retry_count) ORDER BY r.idx)
                    FROM message_recipients r
                   WHERE r.message_id = m.id AND r.organization_id = m.organization_id) AS recipients
            FROM messages m
           WHERE ${byId}`,
    );
    const r = rows[0];
    if (!r) return null;
    const cipher = fieldCipher();
    return {
      id: r.id,
      organizationId: r.organization_id,
      jobId: r.job_id,
      messageId: r.message_id,
      campaignId: r.campaign_id,
      contactId: r.contact_id,
      tags: r.tags,
      recipients: (r.recipients ?? []).map((x) => ({
        idx: x.idx,
        kind: x.kind,
        email: cipher.decrypt(x.address),
        status: x.status,
        retryCount: x.retry_count,
      })),
    };
  }

  /** The addresses of the message's contact (none without one). */
  async contactEmails(message: FeedbackMessage): Promise<string[]> {
    if (!message.contactId) return [];
    const rows = await query<{ email: string }>(
      this.ds,
      sql`SELECT email FROM contact_emails
           WHERE organization_id = ${message.organizationId}::uuid
             AND contact_id = ${message.contactId}::uuid`,
    );
    const cipher = fieldCipher();
    return rows.map((r) => cipher.decrypt(r.email));
  }

  /**
   * Records a report's attempt on the message through the log's one report writer: a bounce also
   * moves a `delivered` recipient to `bounced` (and the finished message's status with it).
   */
  async recordAttempt(
    em: EntityManager,
    organizationId: string,
    message: FeedbackMessage,
    a: FeedbackAttempt,
  ): Promise<void> {
    await this.reports.record(em, organizationId, {
      messageId: message.id,
      recipientIdx: a.recipientIdx,
      attempt: a,
      movesFrom: a.status === 'bounced' ? ['delivered'] : [],
    });
  }
}
