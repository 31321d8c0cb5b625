import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhook endpoints, their deliveries and every attempt (§10). The signing secret, the custom
 * headers (which often carry credentials) and each delivery's event data (which can carry contact
 * details) are encrypted at rest (`v1:<keyId>:<payload>`). The request body is rebuilt from
 * id, type, occurred_at and data, byte for byte the same on every attempt.
 * `locked_until`/`locked_by` form the lease a worker holds while it attempts a delivery.
 */
export class Webhooks1763700000600 implements MigrationInterface {
  name = 'Webhooks1763700000600';

  async up(q: QueryRunner): Promise<void> {
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
        locked_until timestamptz,
        locked_by uuid,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    // Every delivery is updated at least twice (claim, outcome): vacuum it more eagerly than the
    // default 20 % so the pending index stays small.
    await q.query(
      `ALTER TABLE webhook_deliveries SET (autovacuum_vacuum_scale_factor = 0.05, autovacuum_analyze_scale_factor = 0.05)`,
    );
    await q.query(
      `CREATE INDEX webhook_deliveries_org_idx ON webhook_deliveries (organization_id, created_at DESC, id DESC)`,
    );
    await q.query(
      `CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (webhook_endpoint_id, created_at DESC, id DESC)`,
    );
    await q.query(
      `CREATE INDEX webhook_deliveries_endpoint_status_idx ON webhook_deliveries (webhook_endpoint_id, status)`,
    );
    // The due-retry scan reads only pending rows, a small set next to the delivered history.
    await q.query(
      `CREATE INDEX webhook_deliveries_pending_idx ON webhook_deliveries (next_retry_at) WHERE status = 'pending'`,
    );

    await q.query(`
      CREATE TABLE webhook_attempts (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        webhook_delivery_id uuid NOT NULL REFERENCES webhook_deliveries(id) ON DELETE CASCADE,
        attempt_number int NOT NULL CHECK (attempt_number >= 1),
        http_status_code int,
        error_message text,
        response_body text,
        duration_ms int NOT NULL,
        started_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (webhook_delivery_id, attempt_number)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of ['webhook_attempts', 'webhook_deliveries', 'webhook_endpoints']) {
      await q.query(`DROP TABLE IF EXISTS ${t}`);
    }
  }
}
