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

/** Escapes the LIKE wildcards of a user's fragment (the pattern is used with `ESCAPE '\\'`). */
export function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (m) => '\\' + m);
}

/**
 * Runs `q` and answers its rows: for a SELECT, and for an INSERT, UPDATE or DELETE with
 * RETURNING (TypeORM answers `[rows, affected]` for UPDATE and DELETE; rows are objects, never
 * arrays, so that shape cannot be mistaken for rows).
 *
 * `prepare` names the statement: each connection parses and plans it once and then reuses the
 * plan, where an unnamed statement is planned on every run (docs/performance.md). For the
 * statements of the hot paths (send, relay, events, webhook delivery). A name stands for one
 * text: a statement whose text varies with its input (a VALUES list of as many rows as items)
 * takes one name per variant.
 */
export async function query<T>(
  db: DataSource | EntityManager,
  q: Sql,
  opts: { prepare?: string } = {},
): Promise<T[]> {
  if (!opts.prepare) return rowsOf<T>(await db.query(q.text, q.values));
  const known = prepared.get(opts.prepare);
  if (known === undefined) prepared.set(opts.prepare, q.text);
  else if (known !== q.text)
    throw new Error(`statement ${opts.prepare} was prepared with another text`);
  // A named statement is handed to the driver as its query config (TypeORM passes it through).
  const config = { name: opts.prepare, text: q.text } as unknown as string;
  return rowsOf<T>(await db.query(config, q.values));
}

/** The text of each named statement: a name never stands for two texts. */
const prepared = new Map<string, string>();

function rowsOf<T>(raw: unknown): T[] {
  if (Array.isArray(raw) && raw.length === 2 && Array.isArray(raw[0]) && typeof raw[1] === 'number')
    return raw[0] as T[];
  return (raw ?? []) as T[];
}
