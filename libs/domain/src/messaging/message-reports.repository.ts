// Reports about a message after its delivery run (§8, §14, §17): a bounce or delay report mailed
// back to the inbound port, a provider's status callback. Each is one attempt of the message,
// written here and only here besides the delivery run's own record (MessageRepository.recordRuns):
// the message row locked, the attempt inserted, the recipient moved when its state allows it, and
// the message's status taken from its recipients' once no delivery run holds it open.
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { query, sql } from '../database/sql';
import { summariseRecipients } from './delivery-policy';
import type { AttemptStatus } from './delivery-policy';
import type { MessageStatus, RecipientStatus } from './message.types';

export interface ReportedAttempt {
  status: AttemptStatus;
  smtpCode?: number | null;
  smtpMessage?: string | null;
  mxHost?: string | null;
  providerCode?: string | null;
  /** Attempts before the one the report is about. */
  retryCount: number;
  attemptedAt: Date;
}

export interface MessageReport {
  messageId: string;
  recipientIdx: number;
  attempt: ReportedAttempt;
  /** The recipient takes the attempt's status when it is in one of these. */
  movesFrom: RecipientStatus[];
}

/** Messages in these states are still the delivery worker's: a report leaves their status alone. */
const IN_DELIVERY: MessageStatus[] = ['queued', 'deferred'];

@Injectable()
export class MessageReportsRepository {
  /**
   * Records the report; answers whether the recipient moved, or null when the message is gone.
   * The message row is locked first, so a concurrent report or delivery run waits.
   */
  async record(
    em: EntityManager,
    organizationId: string,
    report: MessageReport,
  ): Promise<{ moved: boolean } | null> {
    const { messageId: id, recipientIdx: idx, attempt: a } = report;
    const [locked] = await query<{ status: MessageStatus }>(
      em,
      sql`SELECT status FROM messages
           WHERE organization_id = ${organizationId}::uuid AND id = ${id}::uuid
           FOR UPDATE`,
    );
    if (!locked) return null;
    await query(
      em,
      sql`INSERT INTO message_attempts (message_id, organization_id, recipient_idx, status,
            smtp_code, smtp_message, mx_host, outbound_ip, provider_code, retry_count, attempted_at)
          VALUES (${id}::uuid, ${organizationId}::uuid, ${idx}, ${a.status},
            ${a.smtpCode ?? null}::int, ${a.smtpMessage ?? null}::text, ${a.mxHost ?? null}::text,
            NULL, ${a.providerCode ?? null}::text, ${a.retryCount}, ${a.attemptedAt}::timestamptz)`,
    );
    const moved = await query<{ idx: number }>(
      em,
      sql`UPDATE message_recipients SET status = ${a.status}, next_attempt_at = NULL
           WHERE organization_id = ${organizationId}::uuid AND message_id = ${id}::uuid
             AND idx = ${idx} AND status = ANY(${report.movesFrom}::text[])
          RETURNING idx`,
    );
    if (!moved.length || IN_DELIVERY.includes(locked.status)) return { moved: moved.length > 0 };
    const states = await query<{ idx: number; status: RecipientStatus }>(
      em,
      sql`SELECT idx, status FROM message_recipients
           WHERE organization_id = ${organizationId}::uuid AND message_id = ${id}::uuid`,
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
      sql`UPDATE messages
             SET status = ${summary.status}, updated_at = now(),
                 completed_at = coalesce(completed_at, ${summary.completedAt}::timestamptz)
           WHERE organization_id = ${organizationId}::uuid AND id = ${id}::uuid`,
    );
    return { moved: true };
  }
}
