// A statement straight through the driver's pool (the pool TypeORM itself uses, with its type
// parsers). `DataSource.query` builds a query runner and an entity manager per statement, which
// the hot paths (contact pages, delivery claims and records, message inserts) should not pay.
// Not for use inside a transaction. A `name` makes the statement a prepared statement of each
// pooled connection: its text, which must then never change, is parsed and planned once per
// connection instead of on every call.
import type { Pool } from 'pg';
import type { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';

export async function poolQuery<T>(
  ds: DataSource,
  sql: string,
  params: unknown[],
  name?: string,
): Promise<T[]> {
  const pool = (ds.driver as PostgresDriver).master as Pool;
  const res = await pool.query(
    name ? { name, text: sql, values: params } : { text: sql, values: params },
  );
  return res.rows as T[];
}
