// The statements of the event path: an event is stored as one webhook delivery (and its queue
// row) per active endpoint of its organization subscribed to its type; the wake-up NOTIFY.
import { Injectable } from '@nestjs/common';
import type { DataSource, EntityManager } from 'typeorm';
import type { OrgId } from '../common/org-id';
import { fieldCipher } from '../crypto/field-encryption';
import { query, sql, Sql } from '../database/sql';
import type { EventType } from './event-types';

/** Delivery ids per notification: 150 × 37 bytes stays well under PostgreSQL's 8,000-byte payload. */
export const NOTIFY_IDS_MAX = 150;

/** An event as stored: its time is decided. */
export interface StoredEvent {
  type: EventType;
  data: unknown;
  occurredAt: Date;
}

/**
 * The deliveries of `selected` (rows of organization_id, endpoint_id, type, data, occurred_at and
 * their order `ord`) with their queue rows, in one statement; answers the delivery ids.
 */
function insertDeliveries(selected: Sql, at: Date): Sql {
  return sql`WITH ins AS (
      INSERT INTO webhook_deliveries
        (id, organization_id, webhook_endpoint_id, type, data, occurred_at, status,
         attempt_count, created_at, updated_at)
      SELECT gen_random_uuid(), s.organization_id, s.endpoint_id, s.type, s.data, s.occurred_at,
             'pending', 0, ${at}::timestamptz, ${at}::timestamptz
      FROM (${selected}) s
      ORDER BY s.ord, s.endpoint_id
      RETURNING id, webhook_endpoint_id, created_at
    ), queued AS (
      INSERT INTO webhook_delivery_queue (delivery_id, webhook_endpoint_id, queued_at)
      SELECT id, webhook_endpoint_id, created_at FROM ins
    )
    SELECT id FROM ins`;
}

@Injectable()
export class EventRepository {
  /**
   * Stores the events of one organization: a delivery per event and active endpoint subscribed to
   * its type, in the order of `events`, read in the statement's snapshot. `data` is encrypted
   * once per event, shared by its deliveries. Answers the delivery ids. The endpoints are locked
   * (KEY SHARE): one deleted meanwhile is skipped, not a foreign-key error, and one being deleted
   * waits for this transaction (its deliveries then go with it).
   */
  async insert(
    em: EntityManager,
    organizationId: OrgId,
    events: StoredEvent[],
    at: Date,
  ): Promise<string[]> {
    if (!events.length) return [];
    const cipher = fieldCipher();
    const selected = sql`
      SELECT e.organization_id, e.id AS endpoint_id, ev.type, ev.data, ev.occurred_at, ev.ord
      FROM unnest(
        ${events.map((e) => e.type)}::text[],
        ${events.map((e) => cipher.encrypt(JSON.stringify(e.data ?? null)))}::text[],
        ${events.map((e) => e.occurredAt)}::timestamptz[]
      ) WITH ORDINALITY AS ev(type, data, occurred_at, ord)
      JOIN webhook_endpoints e
        ON e.organization_id = ${organizationId}::uuid AND e.is_active AND ev.type = ANY(e.events)
      FOR KEY SHARE OF e`;
    const rows = await query<{ id: string }>(em, insertDeliveries(selected, at), {
      prepare: 'events_insert',
    });
    return rows.map((r) => r.id);
  }

  /** One delivery of `event` to one endpoint of the organization, if it is active; its id. */
  async insertForEndpoint(
    em: EntityManager,
    organizationId: OrgId,
    endpointId: string,
    event: StoredEvent,
    at: Date,
  ): Promise<string | null> {
    const data = fieldCipher().encrypt(JSON.stringify(event.data ?? null));
    const selected = sql`
      SELECT e.organization_id, e.id AS endpoint_id, ${event.type}::text AS type,
             ${data}::text AS data, ${event.occurredAt}::timestamptz AS occurred_at, 1 AS ord
      FROM webhook_endpoints e
      WHERE e.organization_id = ${organizationId}::uuid AND e.id = ${endpointId}::uuid
        AND e.is_active
      FOR KEY SHARE OF e`;
    const rows = await query<{ id: string }>(em, insertDeliveries(selected, at));
    return rows[0]?.id ?? null;
  }

  /**
   * Wakes the dispatchers listening on `channel` for these committed deliveries: one statement,
   * NOTIFY_IDS_MAX ids per notification. Across organizations: a wake-up carries ids only.
   */
  async notify(ds: DataSource, channel: string, deliveryIds: string[]): Promise<void> {
    if (!deliveryIds.length) return;
    const parts: string[] = [];
    for (let i = 0; i < deliveryIds.length; i += NOTIFY_IDS_MAX)
      parts.push(deliveryIds.slice(i, i + NOTIFY_IDS_MAX).join(','));
    await query(ds, sql`SELECT pg_notify(${channel}, p) FROM unnest(${parts}::text[]) p`);
  }
}
