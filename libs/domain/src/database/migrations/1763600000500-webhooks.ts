// Webhooks baseline (§10): endpoints, the delivery history, every attempt, and the narrow queue of
// pending deliveries the dispatchers claim from.
import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The signing secret, the custom headers (which often carry credentials) and each delivery's event
 * data (which can carry contact details) are encrypted at rest (`v1:<keyId>:<payload>`). The
 * request body is rebuilt from id, type, occurred_at and data, byte for byte the same on every
 * attempt.
 *
 * The work queue is its own table: one row per pending delivery (its retry time and the lease of
 * the worker attempting it), deleted when the delivery ends. Claims and lease checks touch this
 * small row only, and the outcome's update of webhook_deliveries changes no indexed column, so
 * with the page room of fillfactor 50 it is a HOT update. `queued_at` is when the row was queued
 * (or resent): a row never claimed 30 s after it is swept by the due-retry scan (its wake-up was
 * lost). Both tables are updated on every attempt, hence their eager autovacuum.
 *
 * Foreign keys left out on purpose: the queue row references its endpoint (deleting the endpoint,
 * or its organization, removes it), not the delivery, and webhook_attempts does not reference
 * webhook_deliveries either. A reference to webhook_deliveries is checked with a plan cached per
 * connection, and one planned while the table was nearly empty scans the whole table on every
 * later check. Deleting an endpoint removes its attempts itself (WebhookEndpointRepository.remove);
 * deleting an organization cascades to them.
 */
export class Webhooks1763600000500 implements MigrationInterface {
  name = 'Webhooks1763600000500';

  async up(q: QueryRunner): Promise<void> {
    // --- endpoints -------------------------------------------------------------------------------
    await q.query(`
      CREATE TABLE webhook_endpoints (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        url text NOT NULL,
        description text,
        events text[] NOT NULL CHECK (cardinality(events) > 0),
        is_active boolean NOT NULL DEFAULT true,
        max_retries int NOT NULL DEFAULT 5 CHECK (max_retries BETWEEN 1 AND 20),
        timeout_seconds int NOT NULL DEFAULT 30 CHECK (timeout_seconds BETWEEN 1 AND 300),
        custom_headers text NOT NULL,
        secret text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(
      `CREATE INDEX webhook_endpoints_org_idx ON webhook_endpoints (organization_id, created_at DESC, id DESC)`,
    );

    // --- delivery history ------------------------------------------------------------------------
    await q.query(`
      CREATE TABLE webhook_deliveries (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        webhook_endpoint_id uuid NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
        type text NOT NULL,
        data text NOT NULL,
        occurred_at timestamptz NOT NULL,
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending','delivered','failed')),
        attempt_count int NOT NULL DEFAULT 0 CHECK (attempt_count >= 0),
        http_status_code int,
        error_message text,
        response_body text,
        next_retry_at timestamptz,
        delivered_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      ) WITH (autovacuum_vacuum_scale_factor = 0.05, autovacuum_analyze_scale_factor = 0.05,
              fillfactor = 50)`);
    await q.query(
      `CREATE INDEX webhook_deliveries_org_idx ON webhook_deliveries (organization_id, created_at DESC, id DESC)`,
    );
    await q.query(
      `CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (webhook_endpoint_id, created_at DESC, id DESC)`,
    );

    // --- attempts --------------------------------------------------------------------------------
    await q.query(`
      CREATE TABLE webhook_attempts (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        webhook_delivery_id uuid NOT NULL,
        attempt_number int NOT NULL CHECK (attempt_number >= 1),
        http_status_code int,
        error_message text,
        response_body text,
        duration_ms int NOT NULL,
        started_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (webhook_delivery_id, attempt_number)
      )`);

    // --- queue of pending deliveries -------------------------------------------------------------
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
    // An endpoint's own claim (§16: at most WEBHOOK_ENDPOINT_CONCURRENCY requests in flight per
    // endpoint) reads its due deliveries oldest first; removing an endpoint finds its rows here.
    await q.query(
      `CREATE INDEX webhook_delivery_queue_endpoint_idx ON webhook_delivery_queue (webhook_endpoint_id, queued_at)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of [
      'webhook_delivery_queue',
      'webhook_attempts',
      'webhook_deliveries',
      'webhook_endpoints',
    ])
      await q.query(`DROP TABLE ${t}`);
  }
}
