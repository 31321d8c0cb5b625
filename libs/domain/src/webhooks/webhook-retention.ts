// The retention of webhook delivery history: a finished delivery (delivered or failed) is kept as
// long as its organization keeps its message log (messageRetentionDays, §1), then deleted with its
// attempts. Pending deliveries are never purged: their retries are still due. Endpoint statistics
// count the deliveries that are kept.
import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Clock } from '../common/clock';

const PURGE_BATCH = 1000;

@Injectable()
export class WebhookRetention {
  private readonly logger = new Logger(WebhookRetention.name);

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly clock: Clock,
  ) {}

  /** Deletes the finished deliveries past their organization's retention; returns how many. */
  async purgeExpired(): Promise<number> {
    const now = this.clock.now();
    let total = 0;
    for (;;) {
      // Per organization along (organization_id, created_at): no scan of the whole history.
      const gone: { n: number }[] = await this.ds.query(
        `WITH gone AS (
           DELETE FROM webhook_deliveries WHERE id IN (
             SELECT d.id FROM organizations o
               JOIN webhook_deliveries d ON d.organization_id = o.id
                AND d.created_at < $1::timestamptz - make_interval(days => o.message_retention_days)
              WHERE d.status <> 'pending'
              LIMIT $2
                FOR UPDATE OF d SKIP LOCKED)
           RETURNING id),
         -- Attempts have no foreign key to their delivery (docs/webhooks.md, round 5).
         attempts AS (
           DELETE FROM webhook_attempts WHERE webhook_delivery_id IN (SELECT id FROM gone))
         SELECT count(*)::int AS n FROM gone`,
        [now, PURGE_BATCH],
      );
      total += gone[0].n;
      if (gone[0].n < PURGE_BATCH) break;
    }
    if (total) this.logger.log({ msg: 'webhook delivery retention purge', deleted: total });
    return total;
  }
}
