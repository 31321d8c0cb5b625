// Received inbound mail (§14, §1 durability): a message received on the inbound port is committed
// here (raw bytes encrypted) before the port answers 250, and the operator reads the mail kept for
// postmaster@ and abuse@. Both run before any organization is known: a row is not an
// organization's until processing matches it (inbound-message.sweeper.ts).
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { createHash } from 'node:crypto';
import { DataSource } from 'typeorm';
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
