// All SQL on webhook deliveries and attempts. Every read takes the organization id; the worker's
// claim and finish statements take delivery ids and the leases they hold instead (or, for an
// endpoint's own claim, the id of an endpoint whose deliveries it has claimed), and its endpoint
// read takes the endpoint ids of the deliveries it has just claimed.
import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { fieldCipher } from '../crypto/field-encryption';
import { query, sql, Sql } from '../database/sql';
import { inTransaction } from '../database/transaction';
import { NOTIFY_IDS_MAX } from '../events/event.repository';
import { WebhookCustomHeader } from './webhook-endpoint.entity';
import { WebhookAttempt } from './webhook-attempt.entity';
import { envelopeJson, WebhookDelivery, WebhookEnvelope } from './webhook-delivery.entity';
import type { AttemptOutcome } from './webhook-retry-policy';
import type { WebhookDeliveryStatus } from './webhook-event-types';

/** A delivery a worker holds the lease of, with what it needs to attempt it. */
export interface ClaimedDelivery {
  id: string;
  organizationId: string;
  type: string;
  /** The exact request body. */
  body: string;
  attemptCount: number;
  leaseId: string;
  endpoint: {
    id: string;
    url: string;
    secret: string;
    customHeaders: WebhookCustomHeader[];
    timeoutSeconds: number;
    maxRetries: number;
    isActive: boolean;
  };
}

/** One attempt made, with the outcome to record. */
export interface FinishedAttempt {
  claimed: ClaimedDelivery;
  outcome: AttemptOutcome;
  startedAt: Date;
  durationMs: number;
}

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

interface ClaimRow {
  id: string;
  organization_id: string;
  type: string;
  data: string;
  occurred_at: Date;
  attempt_count: number;
  endpoint_id: string;
  /** The endpoint row's version (`xmin`): every update of the row gives it a new one. */
  endpoint_version: string;
}

type ClaimedEndpoint = ClaimedDelivery['endpoint'];

/** A worker that dies mid-attempt loses its lease this long after the endpoint's timeout. */
export const LEASE_MARGIN_SECONDS = 30;
/** A stored delivery whose wake-up was lost (no dispatcher listening) is swept after this long. */
export const STALE_AFTER_MS = 30_000;

/**
 * The lease, on the delivery's queue row: one new id per claim statement (`lease`, a parameter),
 * shared by the rows it claims. A lease only has to differ from every other claim of the same
 * row, and every claim statement draws its own; one id per row cost PostgreSQL a
 * gen_random_uuid() per row and the driver a parsed column per row. Only unindexed columns
 * change, so a claim is a HOT update of a narrow row. `next_retry_at` stays as it was: the scan
 * finds an expired lease by `locked_until` whatever it holds.
 */
const claimSet = (lease: string, now: Date): Sql => sql`
  locked_by = ${lease}::uuid,
  locked_until = ${now}::timestamptz + make_interval(secs => e.timeout_seconds + ${LEASE_MARGIN_SECONDS}::int)`;

/**
 * A claim commits without waiting for the WAL flush (`relaxed`, joined into the claim so that it
 * runs): a claim lost in a database crash only makes the delivery claimable again, which delivery
 * at least once allows; visibility to other workers is immediate either way, so two workers still
 * never hold the same lease. Outcomes are recorded with durable commits.
 */
const RELAXED = sql`relaxed AS (SELECT set_config('synchronous_commit', 'off', true))`;

/**
 * What a claim returns per delivery: its own columns and its endpoint's id and row version; the
 * endpoint's columns (URL, secret, headers, limits) come from `endpointCache`, read and decrypted
 * once per endpoint version instead of carried, parsed and looked up in every row.
 */
const CLAIM_RETURNING = sql`
  d.id, d.organization_id, d.type, d.data, d.occurred_at, d.attempt_count,
  e.id AS endpoint_id, e.xmin::text AS endpoint_version`;

/**
 * Endpoints as claims use them, by id, with the row version they were read at. An update of the
 * endpoint row (URL, secret, headers, limits, activation) gives it a new version, so a claim that
 * sees another version reads the row again; the entry is never used for a version it was not read at,
 * except by the claim that read it (which then uses the newer row).
 */
const endpointCache = new Map<string, { version: string; endpoint: ClaimedEndpoint }>();

function toClaimed(r: ClaimRow, endpoint: ClaimedEndpoint, leaseId: string): ClaimedDelivery {
  return {
    id: r.id,
    organizationId: r.organization_id,
    type: r.type,
    body: envelopeJson(r.id, r.type, r.occurred_at, fieldCipher().decrypt(r.data)),
    attemptCount: r.attempt_count,
    leaseId,
    endpoint,
  };
}

const DELIVERY_COLUMNS = `
  id, organization_id AS "organizationId", webhook_endpoint_id AS "webhookEndpointId", type,
  data, occurred_at AS "occurredAt", status, attempt_count AS "attemptCount", http_status_code AS "httpStatusCode",
  error_message AS "errorMessage", response_body AS "responseBody", next_retry_at AS "nextRetryAt",
  delivered_at AS "deliveredAt", created_at AS "createdAt", updated_at AS "updatedAt",
  to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS "cursorAt"`;

/** A delivery as the API reads it: the stored row with its envelope decrypted. */
export type DeliveryRow = Omit<WebhookDelivery, 'data'> & {
  payload: WebhookEnvelope;
  cursorAt: string;
};

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
 * created_at) in its own statement: their queue rows (queued when created), and with a `channel` (a SQL expression) the NOTIFY of their
 * ids, at most NOTIFY_IDS_MAX per notification, which PostgreSQL sends when the transaction
 * commits and never for a rolled-back one. `probe` must be evaluated by the final SELECT for the
 * NOTIFY to run.
 */
function queueAndWake(ins: string, channel: string | null): { ctes: string; probe: string | null } {
  const queued = `${ins}_queued AS (
      INSERT INTO webhook_delivery_queue (delivery_id, webhook_endpoint_id, queued_at)
      SELECT id, webhook_endpoint_id, created_at FROM ${ins}
    )`;
  if (!channel) return { ctes: queued, probe: null };
  return {
    ctes: `${queued}, ${ins}_woken AS (
      SELECT pg_notify(${channel}, string_agg(id::text, ',')) FROM (
        SELECT id, (row_number() OVER () - 1) / ${NOTIFY_IDS_MAX} AS part FROM ${ins}
      ) p GROUP BY part
    )`,
    probe: `(SELECT count(*) FROM ${ins}_woken)`,
  };
}

@Injectable()
export class WebhookDeliveryRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /**
   * Several events at once (one producer's transaction raising many): one statement stores a
   * delivery per event and active endpoint of its organization subscribed to its type, in the
   * order of `events`. With a `channel` (a producer's own transaction), the same statement wakes
   * the dispatchers (NOTIFY of the new ids), sent when the transaction commits.
   */
  async insertForEvents(
    em: EntityManager | DataSource,
    events: { organizationId: string; type: string; data: unknown; occurredAt: Date }[],
    at: Date,
    channel: string | null,
  ): Promise<string[]> {
    if (!events.length) return [];
    const params: unknown[] = [];
    return this.insertNotifying(em, eventsInsert(events, at, params), params, channel);
  }

  /**
   * `insertForEvents` as common table expressions for a producer's own statement (the message
   * insert: its rows and their events in one statement, so one round trip and atomic without a
   * transaction block). Appends its parameters to `params`; `deliveries` is the CTE text to put in
   * the caller's WITH, and `probe` an expression the caller's final SELECT must evaluate (it runs
   * the NOTIFY of the new delivery ids, sent at commit, never for a failed statement). `when`, a
   * condition over the caller's other CTEs, stores the deliveries only where it holds.
   */
  eventsStatement(
    events: { organizationId: string; type: string; data: unknown; occurredAt: Date }[],
    at: Date,
    channel: string,
    params: unknown[],
    when?: string,
  ): { deliveries: string; probe: string } {
    if (!events.length) return { deliveries: '', probe: '0' };
    const insert = eventsInsert(events, at, params, when);
    const { ctes, probe } = queueAndWake('webhook_ins', `$${params.push(channel)}`);
    return { deliveries: `webhook_ins AS (${insert}), ${ctes}`, probe: probe ?? '0' };
  }

  /**
   * Runs an `INSERT … RETURNING id, webhook_endpoint_id, created_at` of deliveries with what
   * follows it in the same statement (`queueAndWake`: the queue rows, and with a `channel` the
   * NOTIFY of the new ids).
   */
  private async insertNotifying(
    em: EntityManager | DataSource,
    insert: string,
    params: unknown[],
    channel: string | null,
  ): Promise<string[]> {
    const { ctes, probe } = queueAndWake('ins', channel ? `$${params.push(channel)}` : null);
    const rows: { id: string }[] = await em.query(
      `WITH ins AS (${insert}), ${ctes}
       SELECT id FROM ins${probe ? `, ${probe} w` : ''}`,
      params,
    );
    return rows.map((r) => r.id);
  }

  /**
   * Takes the lease of each of these deliveries that is due (queued, nobody holds it, no later
   * retry set), in one statement: rows another worker is claiming right now are skipped
   * (`FOR UPDATE SKIP LOCKED`), so of two workers claiming the same row exactly one gets it.
   * Returns the claimed ones. The delivery row itself is only read. Deliveries of the
   * `skipEndpoints` are left in the queue (their endpoints' own claims take them).
   */
  async claimByIds(
    ids: string[],
    now: Date,
    skipEndpoints: string[] = [],
  ): Promise<ClaimedDelivery[]> {
    if (!ids.length) return [];
    const lease = randomUUID();
    const rows = await query<ClaimRow>(
      this.ds,
      // The ids come first, as a join: left to itself the planner may read the whole queue
      // index (dead entries included) and AND it with the primary key on every claim.
      sql`WITH ${RELAXED},
       target AS MATERIALIZED (SELECT unnest(${ids}::uuid[]) AS id),
       due AS (
         SELECT q.delivery_id FROM target t JOIN webhook_delivery_queue q ON q.delivery_id = t.id
         WHERE (q.locked_until IS NULL OR q.locked_until < ${now}::timestamptz)
           AND (q.next_retry_at IS NULL OR q.next_retry_at <= ${now}::timestamptz)
           AND NOT (q.webhook_endpoint_id = ANY(${skipEndpoints}::uuid[]))
         FOR UPDATE OF q SKIP LOCKED
       )
       UPDATE webhook_delivery_queue q SET ${claimSet(lease, now)}
       FROM due, webhook_deliveries d, webhook_endpoints e, relaxed
       WHERE q.delivery_id = due.delivery_id AND d.id = q.delivery_id AND d.status = 'pending'
         AND e.id = d.webhook_endpoint_id
       RETURNING ${CLAIM_RETURNING}`,
    );
    return this.claimedFrom(rows, lease);
  }

  /**
   * The due-retry scan: claims up to `limit` queued deliveries whose retry is due, plus those
   * whose wake-up was lost or whose worker died mid-attempt (lease expired), skipping rows
   * another worker is claiming right now (`FOR UPDATE SKIP LOCKED`). A queue row whose delivery
   * is no longer pending (a resend ended it while its attempt's worker was gone) or gone is
   * dropped. Deliveries of the `skipEndpoints` are left (their endpoints' own claims take them).
   */
  async claimDue(
    now: Date,
    limit: number,
    skipEndpoints: string[] = [],
  ): Promise<ClaimedDelivery[]> {
    const staleBefore = new Date(now.getTime() - STALE_AFTER_MS);
    const lease = randomUUID();
    const rows = await query<ClaimRow>(
      this.ds,
      sql`WITH ${RELAXED},
       due AS (
         SELECT delivery_id FROM webhook_delivery_queue
         WHERE (locked_until IS NULL OR locked_until < ${now}::timestamptz)
           AND (next_retry_at <= ${now}::timestamptz
                OR (next_retry_at IS NULL
                    AND (locked_until IS NOT NULL OR queued_at < ${staleBefore}::timestamptz)))
           AND NOT (webhook_endpoint_id = ANY(${skipEndpoints}::uuid[]))
         ORDER BY next_retry_at NULLS FIRST
         LIMIT ${limit}
         FOR UPDATE SKIP LOCKED
       ), ended AS (
         DELETE FROM webhook_delivery_queue q USING due
         WHERE q.delivery_id = due.delivery_id AND NOT EXISTS (
           SELECT 1 FROM webhook_deliveries d WHERE d.id = q.delivery_id AND d.status = 'pending')
       )
       UPDATE webhook_delivery_queue q SET ${claimSet(lease, now)}
       FROM due, webhook_deliveries d, webhook_endpoints e, relaxed
       WHERE q.delivery_id = due.delivery_id AND d.id = q.delivery_id AND d.status = 'pending'
         AND e.id = d.webhook_endpoint_id
       RETURNING ${CLAIM_RETURNING}`,
    );
    return this.claimedFrom(rows, lease);
  }

  /**
   * One endpoint's own claim (§16: it had no room when its deliveries were woken or scanned):
   * up to `limit` of its due deliveries, oldest queued first, whether new, to be retried or left
   * by a worker that died, so none waits behind newer ones for ever.
   */
  async claimForEndpoint(endpointId: string, limit: number, now: Date): Promise<ClaimedDelivery[]> {
    const lease = randomUUID();
    const rows = await query<ClaimRow>(
      this.ds,
      sql`WITH ${RELAXED},
       due AS (
         SELECT delivery_id FROM webhook_delivery_queue
         WHERE webhook_endpoint_id = ${endpointId}::uuid
           AND (locked_until IS NULL OR locked_until < ${now}::timestamptz)
           AND (next_retry_at IS NULL OR next_retry_at <= ${now}::timestamptz)
         ORDER BY queued_at
         LIMIT ${limit}
         FOR UPDATE SKIP LOCKED
       ), ended AS (
         DELETE FROM webhook_delivery_queue q USING due
         WHERE q.delivery_id = due.delivery_id AND NOT EXISTS (
           SELECT 1 FROM webhook_deliveries d WHERE d.id = q.delivery_id AND d.status = 'pending')
       )
       UPDATE webhook_delivery_queue q SET ${claimSet(lease, now)}
       FROM due, webhook_deliveries d, webhook_endpoints e, relaxed
       WHERE q.delivery_id = due.delivery_id AND d.id = q.delivery_id AND d.status = 'pending'
         AND e.id = d.webhook_endpoint_id
       RETURNING ${CLAIM_RETURNING}`,
    );
    return this.claimedFrom(rows, lease);
  }

  /**
   * Hands leases back without an attempt (the endpoint had no room): the rows are due again at
   * once, with their retry time and attempt count unchanged.
   */
  async releaseLeases(claimed: ClaimedDelivery[]): Promise<void> {
    if (!claimed.length) return;
    await this.ds.query(
      `UPDATE webhook_delivery_queue q SET locked_by = NULL, locked_until = NULL
       FROM unnest($1::uuid[], $2::uuid[]) AS t(id, lease)
       WHERE q.delivery_id = t.id AND q.locked_by = t.lease`,
      [claimed.map((c) => c.id), claimed.map((c) => c.leaseId)],
    );
  }

  /**
   * The claimed deliveries with their endpoints: from the cache when it holds the version the
   * claim saw, else read (one statement for all the endpoints missing). A delivery whose endpoint
   * was removed since the claim is left out: the removal deleted it too.
   */
  private async claimedFrom(rows: ClaimRow[], lease: string): Promise<ClaimedDelivery[]> {
    let missing: Set<string> | undefined;
    for (const r of rows) {
      if (endpointCache.get(r.endpoint_id)?.version !== r.endpoint_version)
        (missing ??= new Set()).add(r.endpoint_id);
    }
    if (missing) await this.readEndpoints([...missing]);
    const out: ClaimedDelivery[] = [];
    for (const r of rows) {
      const cached = endpointCache.get(r.endpoint_id);
      if (cached) out.push(toClaimed(r, cached.endpoint, lease));
    }
    return out;
  }

  private async readEndpoints(ids: string[]): Promise<void> {
    const rows: {
      id: string;
      version: string;
      url: string;
      secret: string;
      custom_headers: string;
      timeout_seconds: number;
      max_retries: number;
      is_active: boolean;
    }[] = await this.ds.query(
      `SELECT id, xmin::text AS version, url, secret, custom_headers, timeout_seconds,
              max_retries, is_active
       FROM webhook_endpoints WHERE id = ANY($1::uuid[])`,
      [ids],
    );
    if (endpointCache.size + rows.length > 1000) endpointCache.clear();
    for (const id of ids) endpointCache.delete(id);
    const cipher = fieldCipher();
    for (const e of rows) {
      endpointCache.set(e.id, {
        version: e.version,
        endpoint: {
          id: e.id,
          url: e.url,
          secret: cipher.decrypt(e.secret),
          customHeaders: JSON.parse(cipher.decrypt(e.custom_headers)) as WebhookCustomHeader[],
          timeoutSeconds: e.timeout_seconds,
          maxRetries: e.max_retries,
          isActive: e.is_active,
        },
      });
    }
  }

  /**
   * Records attempts and their deliveries' new state together, each only while its lease is
   * still held (on the queue row). An ended delivery leaves the queue, one to be retried stays
   * with its retry time and no lease. The delivery's update changes no indexed column (a HOT
   * update). Returns the ids recorded; a missing one lost its lease (re-claimed or deleted).
   */
  async finishAttempts(items: FinishedAttempt[], now: Date): Promise<Set<string>> {
    if (!items.length) return new Set();
    const col = <T>(f: (i: FinishedAttempt) => T) => items.map(f);
    // Columns of plain tokens (uuids, numbers, statuses, ISO timestamps) as one array literal
    // each; the free texts (errors, response bodies) as arrays the driver quotes. Timestamps as
    // ISO text: cheaper for the driver than formatting Dates in local time.
    const list = (f: (i: FinishedAttempt) => string | number | null) => {
      let out = '{';
      for (let k = 0; k < items.length; k++) {
        const v = f(items[k]);
        out += (k ? ',' : '') + (v === null ? 'NULL' : v);
      }
      return out + '}';
    };
    const at = now.toISOString();
    // An endpoint deleted meanwhile removes these rows in the other order (its cascade): a
    // deadlock, retried whole (the lease guard makes a second run record nothing twice).
    const rows = await inTransaction(this.ds, (em) =>
      query<{ id: string }>(
        em,
        sql`WITH input AS (
         SELECT * FROM unnest(
           ${list((i) => i.claimed.id)}::uuid[],
           ${list((i) => i.claimed.leaseId)}::uuid[],
           ${list((i) => i.outcome.status)}::text[],
           ${list((i) => i.outcome.httpStatusCode)}::int[],
           ${col((i) => i.outcome.deliveryError)}::text[],
           ${col((i) => i.outcome.responseBody)}::text[],
           ${list((i) => i.outcome.nextRetryAt?.toISOString() ?? null)}::timestamptz[],
           ${list((i) => i.outcome.deliveredAt?.toISOString() ?? null)}::timestamptz[],
           ${col((i) => i.outcome.attemptError)}::text[],
           ${list((i) => i.durationMs)}::int[],
           ${list((i) => i.startedAt.toISOString())}::timestamptz[])
         AS t(id, lease, status, http_status_code, delivery_error, response_body, next_retry_at,
              delivered_at, attempt_error, duration_ms, started_at)
       ), ended AS (
         DELETE FROM webhook_delivery_queue q USING input i
         WHERE q.delivery_id = i.id AND q.locked_by = i.lease AND i.status <> 'pending'
         RETURNING q.delivery_id AS id
       ), again AS (
         UPDATE webhook_delivery_queue q SET
           next_retry_at = i.next_retry_at, locked_by = NULL, locked_until = NULL
         FROM input i
         WHERE q.delivery_id = i.id AND q.locked_by = i.lease AND i.status = 'pending'
         RETURNING q.delivery_id AS id
       ), held AS (
         SELECT id FROM ended UNION ALL SELECT id FROM again
       ), upd AS (
         UPDATE webhook_deliveries d SET
           status = i.status, attempt_count = d.attempt_count + 1,
           http_status_code = i.http_status_code, error_message = i.delivery_error,
           response_body = i.response_body, next_retry_at = i.next_retry_at,
           delivered_at = i.delivered_at, updated_at = ${at}::timestamptz
         FROM input i JOIN held h ON h.id = i.id
         WHERE d.id = i.id
         RETURNING d.id, d.organization_id, d.attempt_count, i.http_status_code, i.attempt_error,
           i.response_body, i.duration_ms, i.started_at
       )
       INSERT INTO webhook_attempts
         (organization_id, webhook_delivery_id, attempt_number, http_status_code, error_message,
          response_body, duration_ms, started_at, created_at)
       SELECT organization_id, id, attempt_count, http_status_code, attempt_error, response_body,
         duration_ms, started_at, ${at}::timestamptz
       FROM upd
       RETURNING webhook_delivery_id AS id`,
      ),
    );
    return new Set(rows.map((r) => r.id));
  }

  /** Extends a lease still held (its holder waited for a request slot). */
  async renewLease(claimed: ClaimedDelivery, now: Date): Promise<boolean> {
    const rows = await query<{ id: string }>(
      this.ds,
      sql`UPDATE webhook_delivery_queue
       SET locked_until = ${now}::timestamptz
         + make_interval(secs => ${claimed.endpoint.timeoutSeconds}::int + ${LEASE_MARGIN_SECONDS}::int)
       WHERE delivery_id = ${claimed.id}::uuid AND locked_by = ${claimed.leaseId}::uuid
       RETURNING delivery_id AS id`,
    );
    return rows.length > 0;
  }

  /** Ends a delivery without an attempt (its endpoint was deactivated before it was sent). */
  async failWithoutAttempt(claimed: ClaimedDelivery, message: string, now: Date): Promise<void> {
    await this.ds.query(
      `WITH ended AS (
         DELETE FROM webhook_delivery_queue WHERE delivery_id = $1 AND locked_by = $2
         RETURNING delivery_id
       )
       UPDATE webhook_deliveries SET status = 'failed', error_message = $3, next_retry_at = NULL,
         updated_at = $4
       WHERE id = (SELECT delivery_id FROM ended)`,
      [claimed.id, claimed.leaseId, message, now],
    );
  }

  async list(
    organizationId: string,
    filters: DeliveryFilters,
    cursor: DeliveryCursor | undefined,
    limit: number,
  ): Promise<DeliveryRow[]> {
    const where = ['organization_id = $1'];
    const params: unknown[] = [organizationId];
    const add = (sql: string, value: unknown) => {
      params.push(value);
      where.push(sql.replace('?', `$${params.length}`));
    };
    if (filters.webhookEndpointId) add('webhook_endpoint_id = ?', filters.webhookEndpointId);
    if (filters.statuses?.length) add('status = ANY(?)', filters.statuses);
    if (filters.type) add('type = ?', filters.type);
    if (cursor) {
      params.push(cursor.createdAt, cursor.id);
      where.push(
        `(created_at, id) < ($${params.length - 1}::timestamptz, $${params.length}::uuid)`,
      );
    }
    params.push(limit);
    const rows: (Omit<DeliveryRow, 'payload'> & { data: string })[] = await this.ds.query(
      `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries
       WHERE ${where.join(' AND ')}
       ORDER BY created_at DESC, id DESC
       LIMIT $${params.length}`,
      params,
    );
    return rows.map(toDeliveryRow);
  }

  async get(
    organizationId: string,
    id: string,
    db: DataSource | EntityManager = this.ds,
  ): Promise<DeliveryRow | null> {
    const rows: (Omit<DeliveryRow, 'payload'> & { data: string })[] = await db.query(
      `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE organization_id = $1 AND id = $2`,
      [organizationId, id],
    );
    return rows[0] ? toDeliveryRow(rows[0]) : null;
  }

  async attemptsOf(organizationId: string, deliveryIds: string[]): Promise<WebhookAttempt[]> {
    if (!deliveryIds.length) return [];
    return this.ds
      .getRepository(WebhookAttempt)
      .createQueryBuilder('a')
      .where('a.organizationId = :organizationId', { organizationId })
      .andWhere('a.webhookDeliveryId IN (:...deliveryIds)', { deliveryIds })
      .orderBy('a.webhookDeliveryId')
      .addOrderBy('a.attemptNumber', 'ASC')
      .getMany();
  }
}
