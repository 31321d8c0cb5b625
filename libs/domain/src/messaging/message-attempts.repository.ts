// The message log's one writer of attempts and of recipient and message status moves (§8, §14,
// §17): a batch of records in one statement, whoever produced them. Also the reads a report
// needs: the message a signed reference names (matched across organizations by the row id or job
// id it names, both unique, both signed by us) and the message locked with its recipients' states.
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { asOrgId, OrgId } from '../common/org-id';
import { fieldCipher } from '../crypto/field-encryption';
import { query, sql } from '../database/sql';
import type {
  AttemptsWrite,
  FeedbackMessage,
  FeedbackRecipient,
  LockedMessage,
  MessageReference,
} from './message-attempts';
import type { MessageStatus, RecipientStatus } from './message.types';

@Injectable()
export class MessageAttemptsRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /**
   * Writes records of the organization's messages in one statement: the attempts, the
   * recipients' new states, and each message's change. A run's message takes its outcome, gives
   * its lease back and takes the next dispatch sequence; a report's takes its status, keeping
   * its completion time once set. Answers per write the message's dispatch sequence (0 when the
   * message row is left alone).
   */
  async record(em: EntityManager, orgId: OrgId, writes: AttemptsWrite[]): Promise<number[]> {
    const attempts = writes.flatMap((w) => w.attempts.map((a) => ({ id: w.messageId, a })));
    const recipients = writes.flatMap((w) => w.recipients.map((x) => ({ id: w.messageId, x })));
    const changes = writes.flatMap((w) => {
      const m = w.message;
      if (!m) return [];
      return m.kind === 'run'
        ? [{ id: w.messageId, run: true, ...m.outcome }]
        : [{ id: w.messageId, run: false, ...m, nextAttemptAt: null }];
    });
    const rows = await query<{ id: string; dispatch_seq: number }>(
      em,
      sql`WITH attempts AS (
            INSERT INTO message_attempts (message_id, organization_id, recipient_idx, status,
              smtp_code, smtp_message, mx_host, outbound_ip, retry_count, attempted_at,
              provider_code, segments)
            SELECT t.message_id, ${orgId}::uuid, t.idx, t.status, t.code, t.text, t.mx,
                   t.ip, t.retry_count, t.at, t.provider_code, t.segments
              FROM unnest(
                ${attempts.map(({ id }) => id)}::uuid[],
                ${attempts.map(({ a }) => a.recipientIdx)}::smallint[],
                ${attempts.map(({ a }) => a.status)}::text[],
                ${attempts.map(({ a }) => a.smtpCode)}::int[],
                ${attempts.map(({ a }) => a.smtpMessage)}::text[],
                ${attempts.map(({ a }) => a.mxHost)}::text[],
                ${attempts.map(({ a }) => a.outboundIp)}::text[],
                ${attempts.map(({ a }) => a.retryCount)}::int[],
                ${attempts.map(({ a }) => a.attemptedAt)}::timestamptz[],
                ${attempts.map(({ a }) => a.providerCode ?? null)}::text[],
                ${attempts.map(({ a }) => a.segments ?? null)}::smallint[])
                AS t(message_id, idx, status, code, text, mx, ip, retry_count, at, provider_code,
                     segments)
          ), recipients AS (
            UPDATE message_recipients r
               SET status = t.status, retry_count = t.retry_count, next_attempt_at = t.next_at,
                   first_attempt_at = t.first_at,
                   provider_message_id = coalesce(t.provider_message_id, r.provider_message_id)
              FROM unnest(
                ${recipients.map(({ id }) => id)}::uuid[],
                ${recipients.map(({ x }) => x.idx)}::smallint[],
                ${recipients.map(({ x }) => x.status)}::text[],
                ${recipients.map(({ x }) => x.retryCount)}::int[],
                ${recipients.map(({ x }) => x.nextAttemptAt)}::timestamptz[],
                ${recipients.map(({ x }) => x.firstAttemptAt)}::timestamptz[],
                ${recipients.map(({ x }) => x.providerMessageId ?? null)}::text[])
                AS t(message_id, idx, status, retry_count, next_at, first_at, provider_message_id)
             WHERE r.organization_id = ${orgId}::uuid
               AND r.message_id = t.message_id AND r.idx = t.idx
          )
          UPDATE messages m
             SET status = t.status,
                 next_attempt_at = CASE WHEN t.run THEN t.next_at ELSE m.next_attempt_at END,
                 completed_at = CASE WHEN t.run THEN t.completed_at
                                     ELSE coalesce(m.completed_at, t.completed_at) END,
                 lease_until = CASE WHEN t.run THEN NULL ELSE m.lease_until END,
                 dispatch_seq = m.dispatch_seq + CASE WHEN t.run THEN 1 ELSE 0 END,
                 updated_at = now()
            FROM unnest(
              ${changes.map((c) => c.id)}::uuid[],
              ${changes.map((c) => c.status)}::text[],
              ${changes.map((c) => c.nextAttemptAt)}::timestamptz[],
              ${changes.map((c) => c.completedAt)}::timestamptz[],
              ${changes.map((c) => c.run)}::boolean[])
              AS t(id, status, next_at, completed_at, run)
           WHERE m.organization_id = ${orgId}::uuid AND m.id = t.id
          RETURNING m.id, m.dispatch_seq`,
      { prepare: 'messages_record' },
    );
    const seq = new Map(rows.map((r) => [r.id, r.dispatch_seq]));
    return writes.map((w) => (w.message ? (seq.get(w.messageId) ?? 0) : 0));
  }

  /**
   * Locks the organization's message (a concurrent report or delivery run waits), then reads its
   * recipients' states, committed up to the lock; null when the message is gone.
   */
  async lockForReport(em: EntityManager, orgId: OrgId, id: string): Promise<LockedMessage | null> {
    const [locked] = await query<{ status: MessageStatus }>(
      em,
      sql`SELECT status FROM messages
           WHERE organization_id = ${orgId}::uuid AND id = ${id}::uuid
           FOR UPDATE`,
    );
    if (!locked) return null;
    // A statement of its own: its snapshot is taken once the lock is held.
    const recipients = await query<{
      idx: number;
      status: RecipientStatus;
      retry_count: number;
      first_attempt_at: Date | null;
    }>(
      em,
      sql`SELECT idx, status, retry_count, first_attempt_at
            FROM message_recipients
           WHERE organization_id = ${orgId}::uuid AND message_id = ${id}::uuid
           ORDER BY idx`,
    );
    return {
      status: locked.status,
      recipients: recipients.map((r) => ({
        idx: r.idx,
        status: r.status,
        retryCount: r.retry_count,
        firstAttemptAt: r.first_attempt_at,
      })),
    };
  }

  /** The message a signed reference names, of whichever organization. */
  async findReferenced(ref: MessageReference): Promise<FeedbackMessage | null> {
    const byId =
      'messageId' in ref ? sql`m.id = ${ref.messageId}::uuid` : sql`m.job_id = ${ref.jobId}`;
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
      // The row a signed reference names: its organization is the one the report acts in.
      organizationId: asOrgId(r.organization_id),
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
}
