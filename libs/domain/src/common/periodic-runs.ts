// The claim that lets one replica run a cluster-wide periodic task per period: a row per task in
// periodic_runs, a system table (no organization id; the tasks work across organizations).
import { hostname } from 'node:os';
import type { DataSource } from 'typeorm';
import { query, sql } from '../database/sql';

/** This process among the replicas, as recorded in periodic_runs.ran_by and in the run logs. */
export const REPLICA = `${hostname()}:${process.pid}`;

/**
 * The shortest time between two claimed runs of a task started every `intervalMs`: 10 % less
 * than the interval, so that the winning replica's own next tick, a little early by timer
 * jitter, still wins, while another replica's tick within the period is refused.
 */
export function claimPeriodMs(intervalMs: number): number {
  return Math.floor(intervalMs * 0.9);
}

/**
 * Claims the current period of `name` for `replica`: true when no run of it started within the
 * last `periodMs` (by the database's clock). One statement, so concurrent claimers are ordered by
 * the row's lock and exactly one of them wins a period.
 */
export async function claimPeriodicRun(
  db: DataSource,
  name: string,
  periodMs: number,
  replica: string = REPLICA,
): Promise<boolean> {
  const rows = await query<{ name: string }>(
    db,
    sql`INSERT INTO periodic_runs AS r (name, last_started_at, ran_by)
        VALUES (${name}, now(), ${replica})
        ON CONFLICT (name) DO UPDATE SET last_started_at = now(), ran_by = EXCLUDED.ran_by
         WHERE r.last_started_at <= now() - make_interval(secs => ${periodMs / 1000})
        RETURNING r.name`,
  );
  return rows.length > 0;
}
