import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An endpoint's own claim (§16: at most WEBHOOK_ENDPOINT_CONCURRENCY requests in flight per
 * endpoint) reads its due deliveries oldest first. Claims change neither column, so they stay
 * HOT updates; removing an endpoint finds its queue rows through the same index.
 */
export class WebhookQueueEndpointIndex1763700004020 implements MigrationInterface {
  name = 'WebhookQueueEndpointIndex1763700004020';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX webhook_delivery_queue_endpoint_idx ON webhook_delivery_queue (webhook_endpoint_id, queued_at)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX webhook_delivery_queue_endpoint_idx`);
  }
}
