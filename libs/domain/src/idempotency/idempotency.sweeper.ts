// The purge of Idempotency-Key records (§13), across organizations: keys older than 24 hours are
// deleted. Lookups already ignore expired ones; this keeps the table small.
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Clock } from '../common/clock';
import { query, sql } from '../database/sql';
import { IDEMPOTENCY_TTL_MS } from './idempotency.service';

const PURGE_BATCH = 5000;

@Injectable()
export class IdempotencySweeper {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly clock: Clock,
  ) {}

  /** Deletes the keys older than 24 hours, in batches; answers how many. */
  async purgeExpired(): Promise<number> {
    const before = new Date(this.clock.now().getTime() - IDEMPOTENCY_TTL_MS);
    let total = 0;
    for (;;) {
      const rows = await query<{ n: number }>(
        this.ds,
        sql`WITH d AS (
              DELETE FROM idempotency_keys WHERE ctid IN (
                SELECT ctid FROM idempotency_keys WHERE created_at < ${before} LIMIT ${PURGE_BATCH})
              RETURNING organization_id)
            SELECT count(*)::int AS n FROM d`,
      );
      total += rows[0].n;
      if (rows[0].n < PURGE_BATCH) return total;
    }
  }
}
