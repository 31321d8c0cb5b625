// The SQL of the inbound work list (§14, §1 durability): a message received on the inbound port is
// committed here (raw bytes encrypted) before the port answers 250; workers lease due rows with
// SKIP LOCKED, and mark each processed in the transaction of its effects. Rows are not an
// organization's until matched, so the worker's statements run across organizations by row id.
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { createHash } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { fieldCipher } from '../crypto/field-encryption';
import { empty, query, sql } from '../database/sql';
import type { InboundKind } from './inbound-address';

export interface NewInboundMessage {
  /** What the message is mainly for: the first of its recipients' kinds that is not `operator`. */
  kind: InboundKind;
  /** The addresses it was accepted for (ours: tokens and role boxes, never a person's address). */
  recipients: string[];
  raw: Buffer;
  /** The client that sent it. */
  remoteIp: string | null;
}

export interface OperatorMail {
  id: string;
  recipients: string[];
  receivedAt: Date;
  size: number;
  raw: Buffer;
}

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
  organizationId: string | null;
}

@Injectable()
export class InboundMessageRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /**
   * Commits one received message (its raw bytes encrypted, one copy whatever its recipient count).
   * Answers its id, or null when the same bytes were received before: a replay changes nothing.
   */
  async store(message: NewInboundMessage, at: Date): Promise<string | null> {
    const rows = await query<{ id: string }>(
      this.ds,
      sql`INSERT INTO inbound_messages (kind, recipients, raw, raw_sha256, size, remote_ip,
                                        received_at, next_attempt_at)
          VALUES (${message.kind}, ${message.recipients}::text[],
                  ${fieldCipher().encryptBytes(message.raw)}::bytea,
                  ${createHash('sha256').update(message.raw).digest()}::bytea,
                  ${message.raw.length}, ${message.remoteIp}::inet,
                  ${at}::timestamptz, ${at}::timestamptz)
          ON CONFLICT (raw_sha256) DO NOTHING
          RETURNING id`,
    );
    return rows[0]?.id ?? null;
  }

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
   * Marks a leased message processed, in the transaction of its effects (so they happen once).
   * False when it is no longer this lease's: processed meanwhile by another worker.
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

  /**
   * Mail kept for the operator (kind `operator`: sent only to postmaster@ or abuse@ of a return
   * host; it belongs to no organization), newest first, raw bytes decrypted; one message by `id`.
   */
  async operatorMail(opts: { limit: number } | { id: string }): Promise<OperatorMail[]> {
    const rows = await query<Omit<OperatorMail, 'raw'> & { raw: Buffer }>(
      this.ds,
      sql`SELECT id, recipients, received_at AS "receivedAt", size, raw
            FROM inbound_messages
           WHERE kind = 'operator' ${'id' in opts ? sql`AND id = ${opts.id}::uuid` : empty}
           ORDER BY received_at DESC, id DESC
           LIMIT ${'id' in opts ? 1 : opts.limit}`,
    );
    return rows.map((r) => ({ ...r, raw: fieldCipher().decryptBytes(r.raw) }));
  }
}
