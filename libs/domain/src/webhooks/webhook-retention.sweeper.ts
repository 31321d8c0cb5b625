// The retention of webhook delivery history: a finished delivery (delivered or failed) is kept as
// long as its organization keeps its message log (messageRetentionDays), then deleted with its
// attempts. Pending deliveries are never purged: their retries are still due. One sweep serves
// every organization.
import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Clock } from '../common/clock';
import { query, sql } from '../database/sql';

const PURGE_BATCH = 1000;

@Injectable()
export class WebhookRetentionSweeper {
  private readonly logger = new Logger(WebhookRetentionSweeper.name);

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly clock: Clock,
  ) {}

  /** Deletes the finished deliveries past their organization's retention; returns how many. */
  async purgeExpired(): Promise<number> {
    const now = this.clock.now();
    let total = 0;
    for (;;) {
      const gone = await this.purgeBatch(now, PURGE_BATCH);
      total += gone;
      if (gone < PURGE_BATCH) break;
    }
    if (total) this.logger.log({ msg: 'webhook delivery retention purge', deleted: total });
    return total;
  }

  /**
   * Deletes up to `limit` finished deliveries past their organization's messageRetentionDays,
   * with their attempts; returns how many. Rows another purge holds are skipped.
   */
  private async purgeBatch(now: Date, limit: number): Promise<number> {
    // Per organization along (organization_id, created_at): no scan of the whole history.
    const [gone] = await query<{ n: number }>(
      this.ds,
      sql`WITH gone AS (
        DELETE FROM webhook_deliveries WHERE id IN (
          SELECT d.id FROM organizations o
            JOIN webhook_deliveries d ON d.organization_id = o.id
             AND d.created_at < ${now}::timestamptz - make_interval(days => o.message_retention_days)
           WHERE d.status <> 'pending'
           LIMIT ${limit}
             FOR UPDATE OF d SKIP LOCKED)
        RETURNING id, organization_id),
      -- Attempts have no foreign key to their delivery (see the webhooks migration).
      attempts AS (
        DELETE FROM webhook_attempts a USING gone g
        WHERE a.organization_id = g.organization_id AND a.webhook_delivery_id = g.id)
      SELECT count(*)::int AS n FROM gone`,
    );
    return gone.n;
  }
}
