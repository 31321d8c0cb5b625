// The claims of cluster-wide periodic tasks in periodic_runs, a system table: one row per task,
// of no organization (the tasks work across organizations).
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { query, sql } from '../database/sql';

@Injectable()
export class PeriodicRunRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /**
   * Claims the current period of task `name` for `replica`: true when no run of it started within
   * the last `periodMs` (by the database's clock). One statement, so concurrent claimers are
   * ordered by the row's lock and exactly one of them wins a period.
   */
  async claim(name: string, periodMs: number, replica: string): Promise<boolean> {
    const rows = await query<{ name: string }>(
      this.ds,
      sql`INSERT INTO periodic_runs AS r (name, last_started_at, ran_by)
          VALUES (${name}, now(), ${replica})
          ON CONFLICT (name) DO UPDATE SET last_started_at = now(), ran_by = EXCLUDED.ran_by
           WHERE r.last_started_at <= now() - make_interval(secs => ${periodMs / 1000})
          RETURNING r.name`,
    );
    return rows.length > 0;
  }
}
