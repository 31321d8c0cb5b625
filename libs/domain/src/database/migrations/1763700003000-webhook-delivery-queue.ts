import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The work queue of the webhook dispatchers moves out of the delivery history into a narrow
 * table: one row per pending delivery (its retry time and the lease of the worker attempting it),
 * deleted when the delivery ends. Claims and lease checks touch this small row only; the
 * outcome's update of webhook_deliveries changes no indexed column any more (no index on
 * `status` or `next_retry_at`), so with the page room of fillfactor 50 it is a HOT update: no
 * new entries in the history's three indexes for every attempt.
 * `queued_at` is when the row was queued (or resent): a row never claimed 30 s after it is
 * swept by the due-retry scan (its wake-up was lost).
 *
 * Foreign keys: the queue row references its endpoint (deleting the endpoint, or its
 * organization, removes it), not the delivery: a reference to webhook_deliveries is checked
 * with a plan cached per connection, and one planned while the table was nearly empty (a new
 * deployment, a vacuumed table with autovacuum off) scans the whole table on every later check
 * (measured: emits slowing from 4 to 50 ms within 10,000 deliveries). webhook_attempts loses its
 * reference to webhook_deliveries for the per-row cost of its check (16 of about 50 µs of
 * PostgreSQL per recorded attempt: it locks the delivery row the same statement just updated);
 * deleting an endpoint removes its attempts itself (WebhookEndpointService.remove), deleting an
 * organization still cascades to them.
 */
export class WebhookDeliveryQueue1763700003000 implements MigrationInterface {
  name = 'WebhookDeliveryQueue1763700003000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE webhook_delivery_queue (
        delivery_id uuid PRIMARY KEY,
        webhook_endpoint_id uuid NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
        next_retry_at timestamptz,
        locked_by uuid,
        locked_until timestamptz,
        queued_at timestamptz NOT NULL
      ) WITH (fillfactor = 50, autovacuum_vacuum_scale_factor = 0.02,
              autovacuum_vacuum_threshold = 1000, autovacuum_analyze_scale_factor = 0.05)`);
    // The due-retry scan's order: never-retried rows (lost wake-ups, expired leases) first.
    await q.query(
      `CREATE INDEX webhook_delivery_queue_retry_idx ON webhook_delivery_queue (next_retry_at NULLS FIRST)`,
    );
    await q.query(
      `INSERT INTO webhook_delivery_queue
         (delivery_id, webhook_endpoint_id, next_retry_at, locked_by, locked_until, queued_at)
       SELECT id, webhook_endpoint_id, next_retry_at, locked_by, locked_until, updated_at
       FROM webhook_deliveries WHERE status = 'pending'`,
    );
    await q.query(
      `ALTER TABLE webhook_attempts DROP CONSTRAINT webhook_attempts_webhook_delivery_id_fkey`,
    );
    await q.query(`DROP INDEX webhook_deliveries_pending_idx`);
    await q.query(`DROP INDEX webhook_deliveries_endpoint_status_idx`);
    await q.query(`ALTER TABLE webhook_deliveries DROP COLUMN locked_by, DROP COLUMN locked_until`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE webhook_deliveries ADD COLUMN locked_until timestamptz, ADD COLUMN locked_by uuid`,
    );
    await q.query(
      `UPDATE webhook_deliveries d SET locked_by = q.locked_by, locked_until = q.locked_until,
         next_retry_at = q.next_retry_at
       FROM webhook_delivery_queue q WHERE q.delivery_id = d.id`,
    );
    await q.query(
      `CREATE INDEX webhook_deliveries_endpoint_status_idx ON webhook_deliveries (webhook_endpoint_id, status)`,
    );
    await q.query(
      `CREATE INDEX webhook_deliveries_pending_idx ON webhook_deliveries (next_retry_at) WHERE status = 'pending'`,
    );
    await q.query(`DROP TABLE webhook_delivery_queue`);
    await q.query(
      `DELETE FROM webhook_attempts a
       WHERE NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.id = a.webhook_delivery_id)`,
    );
    await q.query(
      `ALTER TABLE webhook_attempts ADD CONSTRAINT webhook_attempts_webhook_delivery_id_fkey
         FOREIGN KEY (webhook_delivery_id) REFERENCES webhook_deliveries(id) ON DELETE CASCADE`,
    );
  }
}
