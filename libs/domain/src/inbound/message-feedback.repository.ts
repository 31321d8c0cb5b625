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
import { summariseRecipients } from '../messaging/delivery.service';
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

/** Message statuses that the delivery worker no longer changes. */
const FINISHED = ['delivered', 'partially_delivered', 'bounced', 'failed', 'suppressed'];

@Injectable()
export class MessageFeedbackRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

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
   * Records a report's attempt on the message. A bounce also sets its recipient `bounced` and, once
   * the delivery worker is done with the message, its status from its recipients' (§8). The
   * message row is locked first, so a concurrent report or delivery run waits.
   */
  async recordAttempt(
    em: EntityManager,
    organizationId: string,
    message: FeedbackMessage,
    a: FeedbackAttempt,
  ): Promise<void> {
    const [locked] = await query<{ status: string }>(
      em,
      sql`SELECT status FROM messages
           WHERE id = ${message.id}::uuid AND organization_id = ${organizationId}::uuid
           FOR UPDATE`,
    );
    if (!locked) return;
    await query(
      em,
      sql`INSERT INTO message_attempts (message_id, organization_id, recipient_idx, status,
            smtp_code, smtp_message, mx_host, outbound_ip, retry_count, attempted_at)
          VALUES (${message.id}::uuid, ${organizationId}::uuid, ${a.recipientIdx}, ${a.status},
            ${a.smtpCode}::int, ${a.smtpMessage}::text, ${a.mxHost}::text, NULL, ${a.retryCount},
            ${a.attemptedAt}::timestamptz)
          RETURNING id`,
    );
    if (a.status !== 'bounced') return;
    const recipients = await query<{ idx: number; status: RecipientState['status'] }>(
      em,
      sql`UPDATE message_recipients SET status = 'bounced'
           WHERE message_id = ${message.id}::uuid AND organization_id = ${organizationId}::uuid
             AND idx = ${a.recipientIdx} AND status = 'delivered'
          RETURNING idx, status`,
    );
    if (!recipients.length || !FINISHED.includes(locked.status)) return;
    const states = await query<{ idx: number; status: RecipientState['status'] }>(
      em,
      sql`SELECT idx, status FROM message_recipients
           WHERE message_id = ${message.id}::uuid AND organization_id = ${organizationId}::uuid`,
    );
    const summary = summariseRecipients(
      states.map((s) => ({
        idx: s.idx,
        kind: 'to',
        email: '',
        status: s.status,
        retryCount: 0,
        nextAttemptAt: null,
        firstAttemptAt: null,
      })),
      a.attemptedAt,
    );
    await query(
      em,
      sql`UPDATE messages SET status = ${summary.status}, updated_at = now()
           WHERE id = ${message.id}::uuid AND organization_id = ${organizationId}::uuid
          RETURNING id`,
    );
  }
}
