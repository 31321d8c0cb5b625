// The inbound work list's processing (§14, §1 durability), across organizations: workers lease due
// rows with SKIP LOCKED, mark each processed in the transaction of its effects, put a failed one
// back with backoff, and purge finished rows. A row is no organization's until processed: the
// organization a signed reference in the mail names is known only then, and is kept with the
// outcome (none for mail that matched nothing).
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { OrgId } from '../common/org-id';
import { fieldCipher } from '../crypto/field-encryption';
import { query, sql } from '../database/sql';
import type { InboundKind } from './inbound-address';

export interface LeasedInboundMessage {
  id: string;
  kind: InboundKind;
  recipients: string[];
  raw: Buffer;
  /** Leases so far, this one included. */
  attempts: number;
}

/** What processing made of a message, kept with it. */
export interface InboundOutcome {
  outcome: string;
  organizationId: OrgId | null;
}

@Injectable()
export class InboundMessageSweeper {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /**
   * Leases the oldest due message (its next try moves `leaseMs` ahead, so a worker that dies
   * mid-way leaves it due again) and counts the attempt. Null when nothing is due.
   */
  async leaseNext(now: Date, leaseMs: number): Promise<LeasedInboundMessage | null> {
    const rows = await query<{
      id: string;
      kind: InboundKind;
      recipients: string[];
      raw: Buffer;
      attempts: number;
    }>(
      this.ds,
      sql`UPDATE inbound_messages i
             SET attempts = i.attempts + 1,
                 next_attempt_at = ${now}::timestamptz + make_interval(secs => ${leaseMs / 1000})
           WHERE i.id = (SELECT id FROM inbound_messages
                          WHERE status = 'received' AND next_attempt_at <= ${now}::timestamptz
                          ORDER BY next_attempt_at, id
                          LIMIT 1
                          FOR UPDATE SKIP LOCKED)
          RETURNING i.id, i.kind, i.recipients, i.raw, i.attempts`,
    );
    const r = rows[0];
    if (!r) return null;
    return { ...r, raw: fieldCipher().decryptBytes(r.raw) };
  }

  /**
   * Marks a leased message processed with its outcome and the organization it acted in, in the
   * transaction of its effects (so they happen once). False when it is no longer this lease's:
   * processed meanwhile by another worker.
   */
  async finish(
    em: EntityManager,
    id: string,
    attempts: number,
    result: InboundOutcome,
    at: Date,
  ): Promise<boolean> {
    const rows = await query<{ id: string }>(
      em,
      sql`UPDATE inbound_messages
             SET status = 'processed', outcome = ${result.outcome},
                 organization_id = ${result.organizationId}::uuid, processed_at = ${at}::timestamptz,
                 last_error = NULL
           WHERE id = ${id}::uuid AND status = 'received' AND attempts = ${attempts}
          RETURNING id`,
    );
    return rows.length > 0;
  }

  /** A failed attempt: due again at `retryAt`, or `failed` for good when that is null. */
  async retryLater(
    id: string,
    attempts: number,
    retryAt: Date | null,
    error: string,
    at: Date,
  ): Promise<void> {
    const final = retryAt === null;
    await query(
      this.ds,
      sql`UPDATE inbound_messages
             SET status = CASE WHEN ${final} THEN 'failed' ELSE status END,
                 processed_at = CASE WHEN ${final} THEN ${at}::timestamptz END,
                 next_attempt_at = coalesce(${retryAt}::timestamptz, next_attempt_at),
                 last_error = left(${error}, 500)
           WHERE id = ${id}::uuid AND status = 'received' AND attempts = ${attempts}
          RETURNING id`,
    );
  }

  /** Deletes up to `limit` messages finished (processed or failed) before `before`. */
  async purgeFinished(before: Date, limit: number): Promise<number> {
    const rows = await query<{ id: string }>(
      this.ds,
      sql`DELETE FROM inbound_messages WHERE id IN (
            SELECT id FROM inbound_messages
             WHERE processed_at < ${before}::timestamptz
             LIMIT ${limit}
             FOR UPDATE SKIP LOCKED)
          RETURNING id`,
    );
    return rows.length;
  }
}
