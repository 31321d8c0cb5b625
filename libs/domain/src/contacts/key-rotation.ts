// Key rotation of the contacts area's encrypted values (`npm run admin -- rotate-keys`).
import { DataSource } from 'typeorm';
import { fieldCipher } from '../crypto/field-encryption';
import { empty, join, query, raw, sql, Sql } from '../database/sql';
import { blindIndexOf, ENCRYPTED_CONTACT_COLUMNS } from './blind-index';

export interface RotationResult {
  keyId: string;
  tables: { table: string; rotated: number }[];
}

/**
 * Every encrypted value not written under the current ENCRYPTION_KEY is decrypted (the old key
 * must be in ENCRYPTION_KEYS_OLD), encrypted again under the current key, and its blind index
 * recomputed, in batches of rows, one UPDATE per batch. Safe to run while the service runs and to
 * run again: encrypted values are immutable, and rows already under the current key are skipped.
 * Across organizations unless `organizationId` is given.
 */
export async function rotateContactEncryption(
  ds: DataSource,
  opts: {
    batchSize?: number;
    /** Limit the rotation to one organization's rows (every table carries organization_id). */
    organizationId?: string;
    onBatch?: (table: string, rotated: number) => void;
  } = {},
): Promise<RotationResult> {
  const cipher = fieldCipher();
  const batchSize = opts.batchSize ?? 1000;
  const current = `v1:${cipher.currentKeyId}:%`;
  const result: RotationResult = { keyId: cipher.currentKeyId, tables: [] };

  for (const spec of ENCRYPTED_CONTACT_COLUMNS) {
    const cols = spec.columns;
    const stale = join(
      cols.map(
        (c) =>
          sql`(${raw(c.column)} IS NOT NULL AND ${raw(c.column)} NOT LIKE ${current}
               ${c.encryptedWhen ? sql`AND ${raw(c.encryptedWhen)}` : empty})`,
      ),
      ' OR ',
    );
    const orgOnly = opts.organizationId
      ? sql`AND organization_id = ${opts.organizationId}::uuid`
      : empty;
    const setCols = cols.flatMap((c) => (c.hash ? [c.column, c.hash.column] : [c.column]));
    let lastId = '00000000-0000-0000-0000-000000000000';
    let rotated = 0;
    for (;;) {
      const rows = await query<Record<string, string | null>>(
        ds,
        sql`SELECT id, organization_id, ${raw(cols.map((c) => c.column).join(', '))}
              FROM ${raw(spec.table)}
             WHERE id > ${lastId}::uuid AND (${stale}) ${orgOnly}
             ORDER BY id LIMIT ${batchSize}`,
      );
      if (!rows.length) break;
      const arrays: Sql[] = [
        sql`${rows.map((r) => r.organization_id)}::uuid[]`,
        sql`${rows.map((r) => r.id)}::uuid[]`,
      ];
      for (const c of cols) {
        const values: (string | null)[] = [];
        const hashes: string[] = [];
        for (const r of rows) {
          const stored = r[c.column];
          // A partly encrypted column keeps its clear values as they are.
          const clear = stored === null || (c.encryptedWhen && !stored.startsWith('v1:'));
          const plain = stored === null || clear ? stored : cipher.decrypt(stored);
          values.push(plain === null || clear ? plain : cipher.encrypt(plain));
          if (c.hash && plain !== null) hashes.push(blindIndexOf(c.hash.kind, plain));
        }
        arrays.push(sql`${values}::text[]`);
        if (c.hash) arrays.push(sql`${hashes}::text[]`);
      }
      await query(
        ds,
        sql`UPDATE ${raw(spec.table)} t
               SET ${raw(setCols.map((col) => `${col} = v.${col}`).join(', '))}
              FROM unnest(${join(arrays, ', ')}) AS v(organization_id, id, ${raw(setCols.join(', '))})
             WHERE t.organization_id = v.organization_id AND t.id = v.id`,
      );
      rotated += rows.length;
      lastId = rows[rows.length - 1].id!;
      opts.onBatch?.(spec.table, rows.length);
    }
    result.tables.push({ table: spec.table, rotated });
  }
  return result;
}
