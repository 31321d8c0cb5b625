// The one way to write and run a SQL statement: the `sql` tag and `query`.
import { empty, join as joinSql, raw, Sql, sqltag } from 'sql-template-tag';
import type { DataSource, EntityManager } from 'typeorm';

export { empty, raw, Sql };

/**
 * The statement tag. A value is bound as a parameter whatever its type (the driver serialises
 * arrays, dates and buffers); a nested `Sql` is spliced in with its own values.
 */
export const sql = sqltag as (strings: ReadonlyArray<string>, ...values: unknown[]) => Sql;

/** `values` (each bound, or spliced when a `Sql`) with `separator` between them; not empty. */
export const join = joinSql as (values: unknown[], separator?: string) => Sql;

/**
 * Runs `q` and answers its rows: for a SELECT, and for an INSERT, UPDATE or DELETE with
 * RETURNING (TypeORM answers `[rows, affected]` for UPDATE and DELETE; rows are objects, never
 * arrays, so that shape cannot be mistaken for rows).
 */
export async function query<T>(db: DataSource | EntityManager, q: Sql): Promise<T[]> {
  return rowsOf<T>(await db.query(q.text, q.values));
}

function rowsOf<T>(raw: unknown): T[] {
  if (Array.isArray(raw) && raw.length === 2 && Array.isArray(raw[0]) && typeof raw[1] === 'number')
    return raw[0] as T[];
  return (raw ?? []) as T[];
}
