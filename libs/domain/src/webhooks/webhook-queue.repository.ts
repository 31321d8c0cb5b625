// The API's resend transitions on webhook_delivery_queue and webhook_deliveries, for one
// organization; the dispatcher's claims and leases are WebhookQueueSweeper's.
import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import type { OrgId } from '../common/org-id';
import { query, sql } from '../database/sql';
import type { ResendState } from './webhook-queue.types';

/** Every statement takes the organization id first and runs in the caller's transaction. */
@Injectable()
export class WebhookQueueRepository {
  /**
   * A delivery of the organization with its endpoint's retry limit, locked for a resend: its queue
   * row first (when it has one), then the delivery, the order an attempt's record takes them in.
   */
  async lockForResend(
    organizationId: OrgId,
    id: string,
    em: EntityManager,
  ): Promise<ResendState | null> {
    await query(
      em,
      sql`SELECT q.delivery_id FROM webhook_delivery_queue q
            JOIN webhook_deliveries d ON d.id = q.delivery_id
           WHERE d.organization_id = ${organizationId}::uuid AND q.delivery_id = ${id}::uuid
          FOR UPDATE OF q`,
    );
    const rows = await query<ResendState>(
      em,
      sql`SELECT d.status, d.attempt_count AS "attemptCount", e.max_retries AS "maxRetries",
        d.error_message AS "errorMessage"
      FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.webhook_endpoint_id
      WHERE d.organization_id = ${organizationId}::uuid AND d.id = ${id}::uuid
      FOR UPDATE OF d`,
    );
    return rows[0] ?? null;
  }

  /**
   * Ends a delivery whose attempts are used up: failed with `message`, and off the queue unless an
   * attempt is in flight (a live lease): that attempt's outcome still stands when it is recorded,
   * as it ends the delivery itself.
   */
  async failExhausted(
    organizationId: OrgId,
    id: string,
    message: string,
    now: Date,
    em: EntityManager,
  ): Promise<void> {
    await query(
      em,
      sql`WITH target AS (
        SELECT id FROM webhook_deliveries
        WHERE organization_id = ${organizationId}::uuid AND id = ${id}::uuid
      ), unqueued AS (
        DELETE FROM webhook_delivery_queue q USING target t
        WHERE q.delivery_id = t.id
          AND (q.locked_until IS NULL OR q.locked_until < ${now}::timestamptz)
      )
      UPDATE webhook_deliveries d SET status = 'failed', next_retry_at = NULL,
        error_message = ${message}, updated_at = ${now}::timestamptz
      FROM target t WHERE d.organization_id = ${organizationId}::uuid AND d.id = t.id`,
    );
  }

  /**
   * Puts a delivery back on the queue, pending and due now; a lease held by an attempt in flight
   * is kept (its outcome stands, and a claim skips the row until it is recorded).
   */
  async requeue(organizationId: OrgId, id: string, now: Date, em: EntityManager): Promise<void> {
    // The queue row first, then the delivery, as an attempt's record takes them (see lockForResend).
    await query(
      em,
      sql`INSERT INTO webhook_delivery_queue (delivery_id, webhook_endpoint_id, queued_at)
          SELECT id, webhook_endpoint_id, ${now}::timestamptz
            FROM webhook_deliveries
           WHERE organization_id = ${organizationId}::uuid AND id = ${id}::uuid
          ON CONFLICT (delivery_id) DO UPDATE
            SET next_retry_at = NULL, queued_at = ${now}::timestamptz`,
    );
    await query(
      em,
      sql`UPDATE webhook_deliveries
             SET status = 'pending', next_retry_at = NULL, updated_at = ${now}::timestamptz
           WHERE organization_id = ${organizationId}::uuid AND id = ${id}::uuid`,
    );
  }
}
