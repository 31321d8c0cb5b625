// The former event entry points of the producers not yet on `Events` (events/events.service.ts).
// removed once messaging/contacts use Events
import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { Clock } from '../common/clock';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { EventType, isEventType } from '../events/event-types';
import { fieldCipher } from '../crypto/field-encryption';
import { NOTIFY_IDS_MAX } from '../events/event.repository';
import { webhookWakeChannel } from '../events/events.service';

/** One event of `emitManyWithin`. */
export interface WebhookEvent {
  organizationId: string;
  type: EventType;
  /** JSON-serialisable, without secrets; sent as given. */
  data: unknown;
  /** The envelope's `timestamp`; now when not given. */
  occurredAt?: Date;
}

@Injectable()
export class WebhookEvents {
  private readonly channel: string;

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.channel = webhookWakeChannel(config.bullPrefix);
  }

  /**
   * Stores several events in the producer's transaction (e.g. one per recipient), in one
   * statement whose NOTIFY wakes the dispatchers when that transaction commits. An event without
   * `occurredAt` happened now.
   */
  // removed once messaging/contacts use Events
  async emitManyWithin(manager: EntityManager, events: WebhookEvent[]): Promise<string[]> {
    if (!events.length) return [];
    const now = this.clock.now();
    for (const e of events) {
      if (!isEventType(e.type)) throw new Error(`Unknown event type: ${e.type}`);
    }
    const params: unknown[] = [];
    const insert = eventsInsert(
      events.map((e) => ({ ...e, occurredAt: e.occurredAt ?? now })),
      now,
      params,
    );
    const { ctes, probe } = queueAndWake('ins', `$${params.push(this.channel)}`);
    const rows: { id: string }[] = await manager.query(
      `WITH ins AS (${insert}), ${ctes} SELECT id FROM ins, ${probe} w`,
      params,
    );
    return rows.map((r) => r.id);
  }

  /**
   * `emitManyWithin` on its own: one statement stores every event's deliveries and, when it
   * commits, wakes the dispatchers.
   */
  // removed once messaging/contacts use Events
  async emitMany(events: WebhookEvent[]): Promise<string[]> {
    return this.emitManyWithin(this.ds.manager, events);
  }

  /**
   * `emitManyWithin` as common table expressions of the producer's own statement. Appends its
   * parameters to `params`; `deliveries` is the CTE text to put in the caller's WITH, and `probe`
   * an expression the caller's final SELECT must evaluate (it runs the NOTIFY of the new delivery
   * ids, sent at commit). `when`, a condition over the caller's other CTEs, stores the deliveries
   * only where it holds.
   */
  // removed once messaging/contacts use Events
  manyWithinStatement(
    events: WebhookEvent[],
    params: unknown[],
    when?: string,
  ): { deliveries: string; probe: string } {
    const now = this.clock.now();
    for (const e of events) {
      if (!isEventType(e.type)) throw new Error(`Unknown event type: ${e.type}`);
    }
    if (!events.length) return { deliveries: '', probe: '0' };
    const insert = eventsInsert(
      events.map((e) => ({ ...e, occurredAt: e.occurredAt ?? now })),
      now,
      params,
      when,
    );
    const { ctes, probe } = queueAndWake('webhook_ins', `$${params.push(this.channel)}`);
    return { deliveries: `webhook_ins AS (${insert}), ${ctes}`, probe };
  }
}

/**
 * The insert of one delivery per event and active endpoint of its organization subscribed to its
 * type, in the order of `events` (`when`: a condition over the caller's other CTEs). Appends its
 * parameters to `params`; one encryption per event, shared by its deliveries.
 */
function eventsInsert(
  events: { organizationId: string; type: string; data: unknown; occurredAt: Date }[],
  at: Date,
  params: unknown[],
  when?: string,
): string {
  const cipher = fieldCipher();
  const p = (v: unknown) => `$${params.push(v)}`;
  const [org, type, data, occurred, now] = [
    p(events.map((e) => e.organizationId)),
    p(events.map((e) => e.type)),
    p(events.map((e) => cipher.encrypt(JSON.stringify(e.data ?? null)))),
    p(events.map((e) => e.occurredAt)),
    p(at),
  ];
  return `INSERT INTO webhook_deliveries
      (id, organization_id, webhook_endpoint_id, type, data, occurred_at, status,
       attempt_count, created_at, updated_at)
    SELECT gen_random_uuid(), ev.organization_id, e.id, ev.type, ev.data, ev.occurred_at,
           'pending', 0, ${now}::timestamptz, ${now}::timestamptz
    FROM unnest(${org}::uuid[], ${type}::text[], ${data}::text[], ${occurred}::timestamptz[])
         WITH ORDINALITY AS ev(organization_id, type, data, occurred_at, ord)
    JOIN webhook_endpoints e
      ON e.organization_id = ev.organization_id AND e.is_active AND ev.type = ANY(e.events)
    ${when ? `WHERE ${when}` : ''}
    ORDER BY ev.ord, e.id
    RETURNING id, webhook_endpoint_id, created_at`;
}

/**
 * What follows an insert of deliveries (the CTE `ins`, returning id, webhook_endpoint_id and
 * created_at): their queue rows (queued when created) and the NOTIFY on `channel` (a SQL
 * expression) of their ids, at most NOTIFY_IDS_MAX per notification, which PostgreSQL sends
 * when the transaction commits and never for a rolled-back one. `probe` must be evaluated by the final SELECT for the
 * NOTIFY to run.
 */
function queueAndWake(ins: string, channel: string): { ctes: string; probe: string } {
  const queued = `${ins}_queued AS (
      INSERT INTO webhook_delivery_queue (delivery_id, webhook_endpoint_id, queued_at)
      SELECT id, webhook_endpoint_id, created_at FROM ${ins}
    )`;
  return {
    ctes: `${queued}, ${ins}_woken AS (
      SELECT pg_notify(${channel}, string_agg(id::text, ',')) FROM (
        SELECT id, (row_number() OVER () - 1) / ${NOTIFY_IDS_MAX} AS part FROM ${ins}
      ) p GROUP BY part
    )`,
    probe: `(SELECT count(*) FROM ${ins}_woken)`,
  };
}
