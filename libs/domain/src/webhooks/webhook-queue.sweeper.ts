// The dispatcher's side of webhook_delivery_queue, across organizations: claims of due
// deliveries (woken, scanned, or an endpoint's own), their leases, and the recorded outcomes.
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { asOrgId } from '../common/org-id';
import { encryptedColumn, fieldCipher } from '../crypto/field-encryption';
import { query, sql, Sql } from '../database/sql';
import { inTransaction } from '../database/transaction';
import { envelopeJson } from './webhook-delivery.entity';
import { customHeadersColumn } from './webhook-endpoint.entity';
import type { ClaimedDelivery, ClaimedEndpoint, FinishedAttempt } from './webhook-queue.types';

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

/** A worker that dies mid-attempt loses its lease this long after the endpoint's timeout. */
export const LEASE_MARGIN_SECONDS = 30;
/** A stored delivery whose wake-up was lost (no dispatcher listening) is swept after this long. */
export const STALE_AFTER_MS = 30_000;
/** Endpoints kept decrypted for claims; past this many, the cache starts over. */
const ENDPOINT_CACHE_MAX = 1000;

/**
 * The lease, on the delivery's queue row: one new id per claim statement, shared by the rows it
 * claims (a lease only has to differ from every other claim of the same row). Only unindexed
 * columns change, so a claim is a HOT update of a narrow row. `next_retry_at` stays as it was:
 * the scan finds an expired lease by `locked_until` whatever it holds.
 */
const claimSet = (lease: string, now: Date): Sql => sql`
  locked_by = ${lease}::uuid,
  locked_until = ${now}::timestamptz + make_interval(secs => e.timeout_seconds + ${LEASE_MARGIN_SECONDS}::int)`;

/** Queue rows among `due` whose delivery is no longer pending (a resend ended it) or gone. */
const DROP_ENDED = sql`ended AS (
  DELETE FROM webhook_delivery_queue q USING due
  WHERE q.delivery_id = due.delivery_id AND NOT EXISTS (
    SELECT 1 FROM webhook_deliveries d WHERE d.id = q.delivery_id AND d.status = 'pending')
)`;

/**
 * The queue of pending deliveries and the leases of the workers attempting them. The queue serves
 * every organization: a claim takes due rows whatever their organization (the dispatcher works
 * for all of them), and the statements that follow a claim are keyed by the delivery ids and the
 * leases it returned; the organization of each claimed delivery comes back with it. The API's
 * resend transitions are WebhookQueueRepository's.
 */
@Injectable()
export class WebhookQueueSweeper {
  /**
   * Endpoints as claims use them, by id, with the row version they were read at: a claim returns
   * each delivery's endpoint id and row version, and the endpoint (URL, secret, headers, limits)
   * is read and decrypted once per version instead of in every claimed row. An update of the row
   * gives it a new version, so a claim that sees another one reads the row again.
   */
  private readonly endpoints = new Map<string, { version: string; endpoint: ClaimedEndpoint }>();

  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /**
   * Across organizations: takes the lease of each of these deliveries that is due (queued, nobody
   * holds it, no later retry set), in one statement; rows another worker is claiming right now
   * are skipped (`FOR UPDATE SKIP LOCKED`), so of two workers claiming the same row exactly one
   * gets it. Deliveries of the `skipEndpoints` are left (their endpoints' own claims take them).
   */
  claimByIds(ids: string[], now: Date, skipEndpoints: string[] = []): Promise<ClaimedDelivery[]> {
    if (!ids.length) return Promise.resolve([]);
    // The ids come first, as a join: left to itself the planner may read the whole queue index
    // (dead entries included) and AND it with the primary key on every claim.
    return this.claim(
      'webhooks_claim_ids',
      now,
      sql`target AS MATERIALIZED (SELECT unnest(${ids}::uuid[]) AS id),
      due AS (
        SELECT q.delivery_id FROM target t JOIN webhook_delivery_queue q ON q.delivery_id = t.id
        WHERE (q.locked_until IS NULL OR q.locked_until < ${now}::timestamptz)
          AND (q.next_retry_at IS NULL OR q.next_retry_at <= ${now}::timestamptz)
          AND NOT (q.webhook_endpoint_id = ANY(${skipEndpoints}::uuid[]))
        FOR UPDATE OF q SKIP LOCKED
      )`,
    );
  }

  /**
   * Across organizations, the due-retry scan: claims up to `limit` queued deliveries whose retry
   * is due, plus those whose wake-up was lost or whose worker died mid-attempt (lease expired).
   * A queue row whose delivery is no longer pending or gone is dropped. Deliveries of the
   * `skipEndpoints` are left (their endpoints' own claims take them).
   */
  claimDue(now: Date, limit: number, skipEndpoints: string[] = []): Promise<ClaimedDelivery[]> {
    const staleBefore = new Date(now.getTime() - STALE_AFTER_MS);
    return this.claim(
      'webhooks_claim_due',
      now,
      sql`due AS (
        SELECT delivery_id FROM webhook_delivery_queue
        WHERE (locked_until IS NULL OR locked_until < ${now}::timestamptz)
          AND (next_retry_at <= ${now}::timestamptz
               OR (next_retry_at IS NULL
                   AND (locked_until IS NOT NULL OR queued_at < ${staleBefore}::timestamptz)))
          AND NOT (webhook_endpoint_id = ANY(${skipEndpoints}::uuid[]))
        ORDER BY next_retry_at NULLS FIRST
        LIMIT ${limit}
        FOR UPDATE SKIP LOCKED
      ), ${DROP_ENDED}`,
    );
  }

  /**
   * Across organizations, keyed by one endpoint: its own claim (§16: it had no room when its
   * deliveries were woken or scanned), up to `limit` of its due deliveries, oldest queued first,
   * whether new, to be retried or left by a worker that died, so none waits behind newer ones.
   */
  claimForEndpoint(endpointId: string, limit: number, now: Date): Promise<ClaimedDelivery[]> {
    return this.claim(
      'webhooks_claim_endpoint',
      now,
      sql`due AS (
        SELECT delivery_id FROM webhook_delivery_queue
        WHERE webhook_endpoint_id = ${endpointId}::uuid
          AND (locked_until IS NULL OR locked_until < ${now}::timestamptz)
          AND (next_retry_at IS NULL OR next_retry_at <= ${now}::timestamptz)
        ORDER BY queued_at
        LIMIT ${limit}
        FOR UPDATE SKIP LOCKED
      ), ${DROP_ENDED}`,
    );
  }

  /**
   * Across organizations, by lease: hands leases back without an attempt (the endpoint had no
   * room); the rows are due again at once, retry time and attempt count unchanged.
   */
  async releaseLeases(claimed: ClaimedDelivery[]): Promise<void> {
    if (!claimed.length) return;
    await query(
      this.ds,
      sql`UPDATE webhook_delivery_queue q SET locked_by = NULL, locked_until = NULL
      FROM unnest(${claimed.map((c) => c.id)}::uuid[], ${claimed.map((c) => c.leaseId)}::uuid[])
        AS t(id, lease)
      WHERE q.delivery_id = t.id AND q.locked_by = t.lease`,
    );
  }

  /** Across organizations, by lease: extends a lease still held (its holder waited for a slot). */
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

  /**
   * Across organizations, by lease: records attempts and their deliveries' new state together,
   * each only while its lease is still held. An ended delivery leaves the queue, one to be retried
   * stays with its retry time and no lease. The delivery's update changes no indexed column (a
   * HOT update). Returns the ids recorded; a missing one lost its lease (re-claimed or deleted).
   */
  async finishAttempts(items: FinishedAttempt[], now: Date): Promise<Set<string>> {
    if (!items.length) return new Set();
    const col = <T>(f: (i: FinishedAttempt) => T) => items.map(f);
    // An endpoint deleted meanwhile removes these rows in the other order (its cascade): a
    // deadlock, retried whole (the lease guard makes a second run record nothing twice).
    const rows = await inTransaction(this.ds, (em) =>
      query<{ id: string }>(
        em,
        sql`WITH input AS (
         SELECT * FROM unnest(
           ${col((i) => i.claimed.id)}::uuid[],
           ${col((i) => i.claimed.organizationId)}::uuid[],
           ${col((i) => i.claimed.leaseId)}::uuid[],
           ${col((i) => i.outcome.status)}::text[],
           ${col((i) => i.outcome.httpStatusCode)}::int[],
           ${col((i) => i.outcome.deliveryError)}::text[],
           ${col((i) => i.outcome.responseBody)}::text[],
           ${col((i) => i.outcome.nextRetryAt)}::timestamptz[],
           ${col((i) => i.outcome.deliveredAt)}::timestamptz[],
           ${col((i) => i.outcome.attemptError)}::text[],
           ${col((i) => i.durationMs)}::int[],
           ${col((i) => i.startedAt)}::timestamptz[])
         AS t(id, organization_id, lease, status, http_status_code, delivery_error, response_body,
              next_retry_at, delivered_at, attempt_error, duration_ms, started_at)
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
           delivered_at = i.delivered_at, updated_at = ${now}::timestamptz
         FROM input i JOIN held h ON h.id = i.id
         WHERE d.organization_id = i.organization_id AND d.id = i.id
         RETURNING d.id, d.organization_id, d.attempt_count, i.http_status_code, i.attempt_error,
           i.response_body, i.duration_ms, i.started_at
       )
       INSERT INTO webhook_attempts
         (organization_id, webhook_delivery_id, attempt_number, http_status_code, error_message,
          response_body, duration_ms, started_at, created_at)
       SELECT organization_id, id, attempt_count, http_status_code, attempt_error, response_body,
         duration_ms, started_at, ${now}::timestamptz
       FROM upd
       RETURNING webhook_delivery_id AS id`,
        { prepare: 'webhooks_finish' },
      ),
    );
    return new Set(rows.map((r) => r.id));
  }

  /** Ends a claimed delivery without an attempt (its endpoint was deactivated before it was sent). */
  async failWithoutAttempt(claimed: ClaimedDelivery, message: string, now: Date): Promise<void> {
    await query(
      this.ds,
      sql`WITH ended AS (
        DELETE FROM webhook_delivery_queue
        WHERE delivery_id = ${claimed.id}::uuid AND locked_by = ${claimed.leaseId}::uuid
        RETURNING delivery_id
      )
      UPDATE webhook_deliveries SET status = 'failed', error_message = ${message},
        next_retry_at = NULL, updated_at = ${now}::timestamptz
      WHERE organization_id = ${claimed.organizationId}::uuid
        AND id = (SELECT delivery_id FROM ended)`,
    );
  }

  /**
   * One claim statement, prepared as `name`: `due` (common table expressions ending with `due`,
   * the queue rows to take) gets one new lease; the claimed deliveries come back with their
   * endpoints.
   */
  private async claim(name: string, now: Date, due: Sql): Promise<ClaimedDelivery[]> {
    const lease = randomUUID();
    const rows = await query<ClaimRow>(
      this.ds,
      sql`WITH ${due}
      UPDATE webhook_delivery_queue q SET ${claimSet(lease, now)}
      FROM due, webhook_deliveries d, webhook_endpoints e
      WHERE q.delivery_id = due.delivery_id AND d.id = q.delivery_id AND d.status = 'pending'
        AND e.id = d.webhook_endpoint_id
      RETURNING d.id, d.organization_id, d.type, d.data, d.occurred_at, d.attempt_count,
        e.id AS endpoint_id, e.xmin::text AS endpoint_version`,
      { prepare: name },
    );
    return this.claimedFrom(rows, lease);
  }

  /**
   * The claimed deliveries with their endpoints: from the cache when it holds the version the
   * claim saw, else read (one statement for all the endpoints missing). A delivery whose endpoint
   * was removed since the claim is left out: the removal deleted it too.
   */
  private async claimedFrom(rows: ClaimRow[], lease: string): Promise<ClaimedDelivery[]> {
    let missing: Set<string> | undefined;
    for (const r of rows) {
      if (this.endpoints.get(r.endpoint_id)?.version !== r.endpoint_version)
        (missing ??= new Set()).add(r.endpoint_id);
    }
    if (missing) {
      const ids = [...missing];
      const read = await this.endpointsOf(ids);
      if (this.endpoints.size + read.length > ENDPOINT_CACHE_MAX) this.endpoints.clear();
      for (const id of ids) this.endpoints.delete(id);
      for (const { version, endpoint } of read)
        this.endpoints.set(endpoint.id, { version, endpoint });
    }
    const out: ClaimedDelivery[] = [];
    const cipher = fieldCipher();
    for (const r of rows) {
      const cached = this.endpoints.get(r.endpoint_id);
      if (!cached) continue;
      out.push({
        id: r.id,
        organizationId: asOrgId(r.organization_id),
        type: r.type,
        body: envelopeJson(r.id, r.type, r.occurred_at, cipher.decrypt(r.data)),
        attemptCount: r.attempt_count,
        leaseId: lease,
        endpoint: cached.endpoint,
      });
    }
    return out;
  }

  /**
   * The endpoints of deliveries just claimed, by id, with their secrets decrypted and their row
   * versions (`xmin`).
   */
  private async endpointsOf(
    ids: string[],
  ): Promise<{ version: string; endpoint: ClaimedEndpoint }[]> {
    const rows = await query<{
      id: string;
      version: string;
      url: string;
      secret: string;
      custom_headers: string;
      timeout_seconds: number;
      max_retries: number;
      is_active: boolean;
    }>(
      this.ds,
      sql`SELECT id, xmin::text AS version, url, secret, custom_headers, timeout_seconds,
        max_retries, is_active
      FROM webhook_endpoints WHERE id = ANY(${ids}::uuid[])`,
    );
    return rows.map((e) => ({
      version: e.version,
      endpoint: {
        id: e.id,
        url: e.url,
        secret: encryptedColumn.from(e.secret) as string,
        customHeaders: customHeadersColumn.from(e.custom_headers),
        timeoutSeconds: e.timeout_seconds,
        maxRetries: e.max_retries,
        isActive: e.is_active,
      },
    }));
  }
}
