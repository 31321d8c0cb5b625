// Key rotation of every encrypted value at rest (`mp-admin rotate-keys`), across organizations:
// contacts and their channels, message contents, recipients and raw messages, webhook payloads,
// secrets and headers, DKIM private keys and inbound mail.
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { OrgId } from '../common/org-id';
import { fieldCipher } from '../crypto/field-encryption';
import { empty, join, query, raw, sql, Sql } from '../database/sql';
import { addressIndexKind } from '../channels/channel-message';
import type { MessageChannel } from '../messaging/message.types';
import { BlindIndexKind, blindIndexOf, ENCRYPTED_CONTACT_COLUMNS } from './blind-index';

interface RotatedColumn {
  column: string;
  /** bytea written with `encryptBytes`; otherwise text written with `encrypt`. */
  bytes?: boolean;
  /** Only some values of the column are encrypted: those matching this SQL condition. */
  encryptedWhen?: string;
  /**
   * Its blind index, recomputed under the new key: values normalised as `kind`, or as the SQL
   * `kindOf` says of each row (a message's recipients are indexed as its channel's addresses).
   */
  hash?: {
    column: string;
    kind: BlindIndexKind;
    kindOf?: { sql: string; map: (value: string) => BlindIndexKind };
  };
}

interface RotatedTable {
  table: string;
  /** The primary key's columns and their SQL types. */
  key: [string, string][];
  columns: RotatedColumn[];
  /** Rows per batch at most: rows of megabytes (message contents, raw mail) go fewer at a time. */
  maxBatch?: number;
}

const ID: [string, string][] = [['id', 'uuid']];

/** Every encrypted column of the platform. A new encrypted column is added here. */
export const ENCRYPTED_COLUMNS: RotatedTable[] = [
  ...ENCRYPTED_CONTACT_COLUMNS.map((t) => ({ table: t.table, key: ID, columns: t.columns })),
  {
    table: 'messages',
    key: ID,
    columns: [{ column: 'content' }, { column: 'raw', bytes: true }],
    maxBatch: 50,
  },
  {
    table: 'message_recipients',
    key: [
      ['message_id', 'uuid'],
      ['idx', 'smallint'],
    ],
    columns: [
      {
        column: 'address',
        hash: {
          column: 'address_hash',
          kind: 'email',
          kindOf: {
            sql: `(SELECT m.channel FROM messages m WHERE m.id = message_recipients.message_id)`,
            map: (channel) => addressIndexKind(channel as MessageChannel),
          },
        },
      },
    ],
  },
  {
    table: 'webhook_endpoints',
    key: ID,
    columns: [{ column: 'secret' }, { column: 'custom_headers' }],
  },
  { table: 'webhook_deliveries', key: ID, columns: [{ column: 'data' }] },
  { table: 'sending_domains', key: ID, columns: [{ column: 'dkim_private_key' }] },
  { table: 'channel_providers', key: ID, columns: [{ column: 'credentials' }] },
  { table: 'inbound_messages', key: ID, columns: [{ column: 'raw', bytes: true }], maxBatch: 50 },
];

export interface RotationResult {
  keyId: string;
  /** Rows rewritten per table, and values re-encrypted per column. */
  tables: { table: string; rotated: number; columns: Record<string, number> }[];
}

// Enough of a stored value to tell one encryption from another: the key id and the random nonce.
const HEAD = 64;

@Injectable()
export class KeyRotationSweeper {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /**
   * Every encrypted value not written under the current ENCRYPTION_KEY is decrypted (the old key
   * must be in ENCRYPTION_KEYS_OLD), encrypted again under the current key, and its blind index
   * recomputed, in batches of rows, one UPDATE per batch. Safe to run while the service runs and to
   * run again: a row is rewritten only if its values are still the ones read (a webhook secret
   * changed meanwhile is written under the current key already and is left alone), and rows already
   * under the current key are skipped. Across organizations unless `organizationId` is given
   * (inbound mail kept for the operator belongs to none and is then left out).
   */
  async rotate(
    opts: {
      batchSize?: number;
      organizationId?: OrgId;
      onBatch?: (table: string, rotated: number) => void;
    } = {},
  ): Promise<RotationResult> {
    const cipher = fieldCipher();
    const head = `v1:${cipher.currentKeyId}:`;
    const result: RotationResult = { keyId: cipher.currentKeyId, tables: [] };

    for (const spec of ENCRYPTED_COLUMNS) {
      const batchSize = Math.min(opts.batchSize ?? 1000, spec.maxBatch ?? Infinity);
      const staleOf = (c: RotatedColumn): Sql =>
        c.bytes
          ? sql`(${raw(c.column)} IS NOT NULL
                 AND substring(${raw(c.column)} FROM 1 FOR ${head.length}) <> ${Buffer.from(head, 'latin1')})`
          : sql`(${raw(c.column)} IS NOT NULL AND ${raw(c.column)} NOT LIKE ${`${head}%`}
                 ${c.encryptedWhen ? sql`AND ${raw(c.encryptedWhen)}` : empty})`;
      const stale = join(spec.columns.map(staleOf), ' OR ');
      const orgOnly = opts.organizationId
        ? sql`AND organization_id = ${opts.organizationId}::uuid`
        : empty;
      const keyList = spec.key.map(([k]) => k).join(', ');
      const setCols = spec.columns.flatMap((c) =>
        c.hash ? [c.column, c.hash.column] : [c.column],
      );
      const kindCols = spec.columns.flatMap((c) =>
        c.hash?.kindOf ? [`${c.hash.kindOf.sql} AS ${c.column}_kind`] : [],
      );
      const was = spec.columns.map((c) => `${c.column}_was`);
      const counts: Record<string, number> = Object.fromEntries(
        spec.columns.map((c) => [c.column, 0]),
      );
      let after: unknown[] | null = null;
      let rotated = 0;
      for (;;) {
        const from: Sql = after
          ? sql`AND (${raw(keyList)}) > (${join(after.map((v, i) => sql`${v}::${raw(spec.key[i][1])}`))})`
          : empty;
        const rows = await query<Record<string, unknown>>(
          this.ds,
          sql`SELECT ${raw(keyList)}, organization_id, ${raw([...setCols, ...kindCols].join(', '))}
                FROM ${raw(spec.table)}
               WHERE (${stale}) ${orgOnly} ${from}
               ORDER BY ${raw(keyList)} LIMIT ${batchSize}`,
        );
        if (!rows.length) break;
        const arrays: Sql[] = [
          sql`${rows.map((r) => r.organization_id)}::uuid[]`,
          ...spec.key.map(([k, type]) => sql`${rows.map((r) => r[k])}::${raw(type)}[]`),
        ];
        const heads: Sql[] = [];
        const changed: boolean[][] = spec.columns.map(() => []);
        spec.columns.forEach((c, ci) => {
          const values: unknown[] = [];
          const hashes: (string | null)[] = [];
          for (const r of rows) {
            const next = rotateValue(c, r[c.column] as string | Buffer | null, head);
            const plain = next.plain;
            values.push(next.value);
            changed[ci].push(next.changed);
            if (c.hash) {
              const { kindOf } = c.hash;
              const kind = kindOf ? kindOf.map(r[`${c.column}_kind`] as string) : c.hash.kind;
              hashes.push(
                plain === null ? (r[c.hash.column] as string) : blindIndexOf(kind, plain),
              );
            }
          }
          const type = c.bytes ? 'bytea' : 'text';
          arrays.push(sql`${values}::${raw(type)}[]`);
          if (c.hash) arrays.push(sql`${hashes}::text[]`);
          heads.push(
            sql`${rows.map((r) => headOf(r[c.column] as string | Buffer | null))}::${raw(type)}[]`,
          );
        });
        const updated = await query<Record<string, unknown>>(
          this.ds,
          sql`UPDATE ${raw(spec.table)} t
                 SET ${raw(setCols.map((col) => `${col} = v.${col}`).join(', '))}
                FROM unnest(${join([...arrays, ...heads], ', ')})
                     AS v(organization_id, ${raw(keyList)}, ${raw(setCols.join(', '))}, ${raw(was.join(', '))})
               WHERE t.organization_id IS NOT DISTINCT FROM v.organization_id
                 AND ${raw(spec.key.map(([k]) => `t.${k} = v.${k}`).join(' AND '))}
                 AND ${raw(
                   spec.columns
                     .map((c, i) =>
                       c.bytes
                         ? `substring(t.${c.column} FROM 1 FOR ${HEAD}) IS NOT DISTINCT FROM v.${was[i]}`
                         : `left(t.${c.column}, ${HEAD}) IS NOT DISTINCT FROM v.${was[i]}`,
                     )
                     .join(' AND '),
                 )}
              RETURNING ${raw(spec.key.map(([k]) => `t.${k}`).join(', '))}`,
        );
        // A row changed meanwhile was skipped, and its values are not counted.
        const done = new Set(updated.map((u) => keyText(spec, u)));
        rows.forEach((r, ri) => {
          if (!done.has(keyText(spec, r))) return;
          spec.columns.forEach((c, ci) => (counts[c.column] += changed[ci][ri] ? 1 : 0));
        });
        rotated += updated.length;
        const last = rows[rows.length - 1];
        after = spec.key.map(([k]) => last[k]);
        opts.onBatch?.(spec.table, updated.length);
      }
      result.tables.push({ table: spec.table, rotated, columns: counts });
    }
    return result;
  }
}

/** A stored value under the current key (unchanged when it is already), and its plaintext. */
function rotateValue(
  c: RotatedColumn,
  stored: string | Buffer | null,
  head: string,
): { value: string | Buffer | null; plain: string | null; changed: boolean } {
  const cipher = fieldCipher();
  if (stored === null) return { value: null, plain: null, changed: false };
  if (Buffer.isBuffer(stored)) {
    if (stored.toString('latin1', 0, head.length) === head)
      return { value: stored, plain: null, changed: false };
    return { value: cipher.encryptBytes(cipher.decryptBytes(stored)), plain: null, changed: true };
  }
  // A partly encrypted column keeps its clear values as they are.
  if (c.encryptedWhen && !stored.startsWith('v1:'))
    return { value: stored, plain: null, changed: false };
  if (stored.startsWith(head)) return { value: stored, plain: null, changed: false };
  const plain = cipher.decrypt(stored);
  return { value: cipher.encrypt(plain), plain, changed: true };
}

function keyText(spec: RotatedTable, row: Record<string, unknown>): string {
  return spec.key.map(([k]) => String(row[k])).join('|');
}

function headOf(stored: string | Buffer | null): string | Buffer | null {
  if (stored === null) return null;
  return Buffer.isBuffer(stored) ? stored.subarray(0, HEAD) : stored.slice(0, HEAD);
}
