// Key rotation of the contacts area's encrypted values (`npm run admin -- rotate-keys`).
import { DataSource } from 'typeorm';
import { fieldCipher } from '../crypto/field-encryption';
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
    const stale = cols.map(
      (c) =>
        `(${c.column} IS NOT NULL AND ${c.column} NOT LIKE $2${c.encryptedWhen ? ` AND ${c.encryptedWhen}` : ''})`,
    );
    const setCols = cols.flatMap((c) => (c.hash ? [c.column, c.hash.column] : [c.column]));
    let lastId = '00000000-0000-0000-0000-000000000000';
    let rotated = 0;
    for (;;) {
      const rows: Record<string, string | null>[] = await ds.query(
        `SELECT id, ${cols.map((c) => c.column).join(', ')} FROM ${spec.table}
          WHERE id > $1 AND (${stale.join(' OR ')})${opts.organizationId ? ' AND organization_id = $3' : ''}
          ORDER BY id LIMIT ${batchSize}`,
        opts.organizationId ? [lastId, current, opts.organizationId] : [lastId, current],
      );
      if (!rows.length) break;
      const arrays: (string | null)[][] = [rows.map((r) => r.id)];
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
        arrays.push(values);
        if (c.hash) arrays.push(hashes);
      }
      const types = ['uuid[]', ...setCols.map(() => 'text[]')];
      await ds.query(
        `UPDATE ${spec.table} t SET ${setCols.map((col) => `${col} = v.${col}`).join(', ')}
           FROM unnest(${types.map((ty, i) => `$${i + 1}::${ty}`).join(', ')})
                AS v(id, ${setCols.join(', ')})
          WHERE t.id = v.id`,
        arrays,
      );
      rotated += rows.length;
      lastId = rows[rows.length - 1].id!;
      opts.onBatch?.(spec.table, rows.length);
    }
    result.tables.push({ table: spec.table, rotated });
  }
  return result;
}
