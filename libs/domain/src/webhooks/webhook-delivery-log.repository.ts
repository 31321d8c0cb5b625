// The log side of webhook deliveries: the API's list and detail with their attempts and the
// endpoints' delivery counters, for one organization (the retention purge is
// WebhookRetentionSweeper's).
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { OrgId } from '../common/org-id';
import { fieldCipher } from '../crypto/field-encryption';
import { empty, join, query, sql, Sql } from '../database/sql';
import type { WebhookAttempt } from './webhook-attempt.entity';
import type { WebhookDelivery, WebhookEnvelope } from './webhook-delivery.entity';
import type { WebhookDeliveryStatus } from './webhook-event-types';

export interface DeliveryFilters {
  webhookEndpointId?: string;
  statuses?: WebhookDeliveryStatus[];
  type?: string;
}

/** Keyset position of the list (newest first). */
export interface DeliveryCursor {
  createdAt: string;
  id: string;
}

/** A delivery as the API reads it: the stored row with its envelope decrypted. */
export type DeliveryRow = Omit<WebhookDelivery, 'data'> & {
  payload: WebhookEnvelope;
  cursorAt: string;
};

/** Delivery counters of one endpoint: finished deliveries and the newest delivery's time. */
export interface EndpointCounters {
  id: string;
  isActive: boolean;
  delivered: number;
  failed: number;
  /** delivered / (delivered + failed) × 100, rounded to one decimal; 0 without any. */
  successRate: number;
  lastTriggeredAt: Date | null;
}

const DELIVERY_COLUMNS = sql`
  id, organization_id AS "organizationId", webhook_endpoint_id AS "webhookEndpointId", type,
  data, occurred_at AS "occurredAt", status, attempt_count AS "attemptCount",
  http_status_code AS "httpStatusCode", error_message AS "errorMessage",
  response_body AS "responseBody", next_retry_at AS "nextRetryAt",
  delivered_at AS "deliveredAt", created_at AS "createdAt", updated_at AS "updatedAt",
  to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS "cursorAt"`;

function toDeliveryRow(raw: Omit<DeliveryRow, 'payload'> & { data: string }): DeliveryRow {
  const { data, ...rest } = raw;
  return {
    ...rest,
    payload: {
      delivery_id: raw.id,
      type: raw.type,
      timestamp: raw.occurredAt.toISOString(),
      data: JSON.parse(fieldCipher().decrypt(data)) as unknown,
    },
  };
}

@Injectable()
export class WebhookDeliveryLogRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** The organization's deliveries matching `filters`, newest first, after `cursor`. */
  async list(
    organizationId: OrgId,
    filters: DeliveryFilters,
    cursor: DeliveryCursor | undefined,
    limit: number,
  ): Promise<DeliveryRow[]> {
    const where: Sql[] = [sql`organization_id = ${organizationId}::uuid`];
    if (filters.webhookEndpointId)
      where.push(sql`webhook_endpoint_id = ${filters.webhookEndpointId}::uuid`);
    if (filters.statuses?.length) where.push(sql`status = ANY(${filters.statuses}::text[])`);
    if (filters.type) where.push(sql`type = ${filters.type}`);
    if (cursor)
      where.push(sql`(created_at, id) < (${cursor.createdAt}::timestamptz, ${cursor.id}::uuid)`);
    const rows = await query<Omit<DeliveryRow, 'payload'> & { data: string }>(
      this.ds,
      sql`SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries
      WHERE ${join(where, ' AND ')}
      ORDER BY created_at DESC, id DESC
      LIMIT ${limit}`,
    );
    return rows.map(toDeliveryRow);
  }

  /** One delivery of the organization (with `em`, as its transaction sees it). */
  async get(
    organizationId: OrgId,
    id: string,
    em: DataSource | EntityManager = this.ds,
  ): Promise<DeliveryRow | null> {
    const rows = await query<Omit<DeliveryRow, 'payload'> & { data: string }>(
      em,
      sql`SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries
      WHERE organization_id = ${organizationId}::uuid AND id = ${id}::uuid`,
    );
    return rows[0] ? toDeliveryRow(rows[0]) : null;
  }

  /** The attempts of these deliveries of the organization, by delivery, in attempt order. */
  async attempts(organizationId: OrgId, deliveryIds: string[]): Promise<WebhookAttempt[]> {
    if (!deliveryIds.length) return [];
    return query<WebhookAttempt>(
      this.ds,
      sql`SELECT id, organization_id AS "organizationId", webhook_delivery_id AS "webhookDeliveryId",
        attempt_number AS "attemptNumber", http_status_code AS "httpStatusCode",
        error_message AS "errorMessage", response_body AS "responseBody",
        duration_ms AS "durationMs", started_at AS "startedAt", created_at AS "createdAt"
      FROM webhook_attempts
      WHERE organization_id = ${organizationId}::uuid
        AND webhook_delivery_id = ANY(${deliveryIds}::uuid[])
      ORDER BY webhook_delivery_id, attempt_number`,
    );
  }

  /** Counters of every endpoint of the organization (or of `endpointIds`), in one statement. */
  async counters(organizationId: OrgId, endpointIds?: string[]): Promise<EndpointCounters[]> {
    const rows = await query<{
      id: string;
      is_active: boolean;
      delivered: number;
      failed: number;
      success_rate: string;
      last_triggered_at: Date | null;
    }>(
      this.ds,
      sql`SELECT e.id, e.is_active, c.delivered, c.failed,
        CASE WHEN c.delivered + c.failed = 0 THEN 0
             ELSE round(100.0 * c.delivered / (c.delivered + c.failed), 1) END AS success_rate,
        lt.created_at AS last_triggered_at
      FROM webhook_endpoints e
      CROSS JOIN LATERAL (
        SELECT count(*) FILTER (WHERE d.status = 'delivered')::int AS delivered,
               count(*) FILTER (WHERE d.status = 'failed')::int AS failed
        FROM webhook_deliveries d WHERE d.webhook_endpoint_id = e.id
      ) c
      LEFT JOIN LATERAL (
        SELECT d.created_at FROM webhook_deliveries d WHERE d.webhook_endpoint_id = e.id
        ORDER BY d.created_at DESC, d.id DESC LIMIT 1
      ) lt ON true
      WHERE e.organization_id = ${organizationId}::uuid
        ${endpointIds ? sql`AND e.id = ANY(${endpointIds}::uuid[])` : empty}`,
    );
    return rows.map((r) => ({
      id: r.id,
      isActive: r.is_active,
      delivered: r.delivered,
      failed: r.failed,
      successRate: Number(r.success_rate),
      lastTriggeredAt: r.last_triggered_at,
    }));
  }
}
