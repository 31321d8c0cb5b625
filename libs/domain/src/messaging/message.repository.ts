// All SQL of the message log: messages, their recipients and delivery attempts. Every read takes
// the organization id; the worker's claim and sweep work by message id across organizations.
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { DataSource, EntityManager } from 'typeorm';
import { MicroBatcher } from '../common/micro-batcher';
import { query, sql } from '../database/sql';
import { FieldCipher, fieldCipher, normaliseEmail } from '../crypto/field-encryption';
import type { EventType } from '../events/event-types';
import type { WebhookEvent } from '../webhooks/webhook-events';
import { EMAIL_OUTCOME_EVENT_TYPES, EmailEventRef, EmailEvents, sentEvent } from './email-events';
import {
  AttemptRecord,
  ClaimedMessage,
  DELIVERY_LEASE_MS,
  MessageStatus,
  NewMessage,
  RecipientState,
  RecipientStatus,
  SweepCursor,
} from './message.types';
import type { MessageContent } from './outgoing-message';

/** The email.sent events of a committed message: one per recipient. */
function sentEventsOf(m: NewMessage) {
  return m.recipients.map((r) =>
    sentEvent(
      {
        organizationId: m.organizationId,
        jobId: m.jobId,
        messageId: m.messageId,
        campaignId: m.campaignId,
        contactId: m.contactId,
        tags: m.tags,
        recipient: { email: r.email, kind: r.kind },
      },
      m.source,
      m.createdAt,
    ),
  );
}

interface ClaimedRow {
  id: string;
  organization_id: string;
  job_id: string;
  message_id: string;
  sender_address: string;
  campaign_id: string | null;
  contact_id: string | null;
  tags: string[];
  track_opens: boolean;
  track_clicks: boolean;
  created_at: Date;
  content: string;
  raw: Buffer | null;
  outcome_events: boolean;
  recipients: {
    idx: number;
    kind: RecipientState['kind'];
    address: string;
    status: RecipientStatus;
    retry_count: number;
    next_attempt_at: string | null;
    first_attempt_at: string | null;
    contact_status: string | null;
  }[];
}

interface ClaimRequest {
  id: string;
  now: Date;
  leaseMs: number;
}

interface RunRecord {
  message: ClaimedMessage;
  attempts: AttemptRecord[];
  recipients: RecipientState[];
  outcome: { status: MessageStatus; nextAttemptAt: Date | null; completedAt: Date | null };
  /** Webhook events of the run's attempts, stored in the transaction that records them. */
  events: WebhookEvent[];
}

/** Stored content (encrypted, base64) from which a claimed message is read in a turn of its own. */
const LARGE_CONTENT_CHARS = 1024 * 1024;

@Injectable()
export class MessageRepository {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly events: EmailEvents,
  ) {}

  /**
   * Which of a message's references is not a row of the organization: 'campaign', 'contact', or
   * null when both are (or are absent). One round trip.
   */
  async foreignReference(
    organizationId: string,
    refs: { campaignId: string | null; contactId: string | null },
  ): Promise<'campaign' | 'contact' | null> {
    if (!refs.campaignId && !refs.contactId) return null;
    const [row]: { campaign: boolean; contact: boolean }[] = await this.ds.query(
      `SELECT ($2::uuid IS NULL OR EXISTS (
                 SELECT 1 FROM campaigns WHERE id = $2 AND organization_id = $1)) AS campaign,
              ($3::uuid IS NULL OR EXISTS (
                 SELECT 1 FROM contacts WHERE id = $3 AND organization_id = $1)) AS contact`,
      [organizationId, refs.campaignId, refs.contactId],
    );
    if (!row.campaign) return 'campaign';
    if (!row.contact) return 'contact';
    return null;
  }

  /**
   * Commits a new message with its recipients and its email.sent events (one transaction);
   * returns messages.id. Concurrent inserts share one transaction (group commit): N messages
   * accepted at once cost one WAL flush, and each caller still returns only after its row is
   * durable.
   */
  insert(m: NewMessage): Promise<string> {
    return this.inserts.push(m);
  }

  private readonly inserts = new MicroBatcher<NewMessage, string>(
    (items) => this.insertMany(items),
    (m) => this.insertMany([m]).then((ids) => ids[0]),
    64,
    2,
  );

  /**
   * Organizations whose last insert found no active webhook endpoint subscribed to email.sent:
   * their next messages go without building and encrypting email.sent events, and the statement
   * checks, in its own snapshot, that this still holds (see insertMany).
   */
  private readonly noSentSubscriber = new Set<string>();

  /**
   * The messages of a batch, their recipients and their email.sent events in one statement, so
   * one round trip and atomic (ids made here, so recipients need not wait for RETURNING). A raw
   * message (SMTP) goes to the bytea column, encrypted as bytes and sent in binary.
   *
   * The events of an organization in `noSentSubscriber` are not built. The statement reads the
   * endpoints subscribed to email.sent of the batch's organizations (`sent_subscribers`, the same
   * snapshot as the join that stores the deliveries); should one of those organizations have one
   * now, the statement writes nothing and the batch runs again with their events. So an
   * email.sent delivery exists exactly when it did with the events always built.
   */
  private async insertMany(items: NewMessage[]): Promise<string[]> {
    const orgs = [...new Set(items.map((m) => m.organizationId))];
    const skipped = orgs.filter((o) => this.noSentSubscriber.has(o));
    const cipher = fieldCipher();
    const ids = items.map(() => randomUUID());
    // One array per column; the raw messages travel as one binary bytea, cut by offset and length.
    const raws = items.map((m) => (m.raw ? cipher.encryptBytes(m.raw) : null));
    const rawStart: (number | null)[] = [];
    const rawLength: (number | null)[] = [];
    let offset = 1;
    for (const r of raws) {
      rawStart.push(r ? offset : null);
      rawLength.push(r ? r.length : null);
      if (r) offset += r.length;
    }
    const recipients = items.flatMap((m, i) =>
      m.recipients.map((r, idx) => ({ id: ids[i], org: m.organizationId, idx, r })),
    );
    const params: unknown[] = [
      ids,
      items.map((m) => m.organizationId),
      items.map((m) => m.jobId),
      items.map((m) => m.messageId),
      items.map((m) => m.source),
      items.map((m) => m.senderAddress),
      items.map((m) => m.campaignId),
      items.map((m) => m.contactId),
      items.map((m) => JSON.stringify(m.tags)),
      items.map((m) => m.trackOpens),
      items.map((m) => m.trackClicks),
      items.map((m) => cipher.encrypt(JSON.stringify(m.content))),
      Buffer.concat(raws.filter((r): r is Buffer => r !== null)),
      rawStart,
      rawLength,
      items.map((m) => m.recipients.length),
      items.map((m) => m.createdAt),
      recipients.map((x) => x.id),
      recipients.map((x) => x.idx),
      recipients.map((x) => x.org),
      recipients.map((x) => x.r.kind),
      recipients.map((x) => cipher.encrypt(x.r.email)),
      recipients.map((x) => cipher.blindIndex(normaliseEmail(x.r.email))),
      orgs,
    ];
    const bind = (v: unknown) => `$${params.push(v)}`;
    const guard = skipped.length
      ? `NOT EXISTS (SELECT 1 FROM sent_subscribers WHERE org = ANY(${bind(skipped)}::uuid[]))`
      : '';
    const events = this.events.withinStatement(
      (skipped.length
        ? items.filter((m) => !this.noSentSubscriber.has(m.organizationId))
        : items
      ).flatMap(sentEventsOf),
      params,
      guard || undefined,
    );
    const where = guard ? `WHERE ${guard}` : '';
    const [row]: { subscribed: string[] }[] = await this.ds.query(
      `WITH sent_subscribers AS (
         SELECT DISTINCT organization_id AS org FROM webhook_endpoints
          WHERE organization_id = ANY($24::uuid[]) AND is_active
            AND 'email.sent' = ANY(events)
       ), message AS (
         INSERT INTO messages (id, organization_id, job_id, message_id, source, sender_address,
           campaign_id, contact_id, tags, track_opens, track_clicks, content, raw, status,
           recipient_count, next_attempt_at, created_at, updated_at)
         SELECT t.id, t.org, t.job, t.mid, t.source, t.sender, t.campaign, t.contact,
                ARRAY(SELECT jsonb_array_elements_text(t.tags::jsonb)), t.opens, t.clicks,
                t.content, substring($13::bytea FROM t.raw_start FOR t.raw_length), 'queued',
                t.rcount, t.at, t.at, t.at
           FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[],
                       $7::uuid[], $8::uuid[], $9::text[], $10::boolean[], $11::boolean[],
                       $12::text[], $14::int[], $15::int[], $16::int[], $17::timestamptz[])
             AS t(id, org, job, mid, source, sender, campaign, contact, tags, opens, clicks,
                  content, raw_start, raw_length, rcount, at)
          ${where}
       ), recipients AS (
         INSERT INTO message_recipients (message_id, idx, organization_id, kind, address, address_hash)
         SELECT * FROM unnest($18::uuid[], $19::smallint[], $20::uuid[],
                              $21::text[], $22::text[], $23::text[])
          ${where}
       )${events.deliveries ? `, ${events.deliveries}` : ''}
       SELECT ${events.probe} AS woken, ARRAY(SELECT org::text FROM sent_subscribers) AS subscribed`,
      params,
    );
    const subscribed = new Set(row.subscribed);
    if (this.noSentSubscriber.size >= 10_000) this.noSentSubscriber.clear();
    for (const o of orgs) {
      if (subscribed.has(o)) this.noSentSubscriber.delete(o);
      else this.noSentSubscriber.add(o);
    }
    // An organization taken for unsubscribed has an endpoint now: nothing was written; again,
    // with its events.
    if (skipped.some((o) => subscribed.has(o))) return this.insertMany(items);
    return ids;
  }

  /**
   * Takes the delivery lease on a message that is due, so no other worker delivers it at the
   * same time. Null when it is not due, already leased, finished or gone. Concurrent claims are
   * batched into one statement.
   */
  async claim(id: string, now: Date, leaseMs = DELIVERY_LEASE_MS): Promise<ClaimedMessage | null> {
    const claimed = await this.claims.push({ id, now, leaseMs });
    if (claimed instanceof Error) throw claimed;
    return claimed;
  }

  // A message that cannot be read (content under a key this worker lacks, corrupt JSON) is an
  // Error for its own claimer only. It must not fail the batch: the statement has already
  // committed every lease of the batch, so re-running the items alone (MicroBatcher's fallback)
  // would find them all leased and answer null, leaving the batch's other messages undelivered
  // until their leases expire.
  private readonly claims = new MicroBatcher<ClaimRequest, ClaimedMessage | null | Error>(
    (items) => this.claimMany(items),
    (item) => this.claimMany([item]).then((r) => r[0]),
  );

  private async claimMany(items: ClaimRequest[]): Promise<(ClaimedMessage | null | Error)[]> {
    // One round trip: the leases, the recipients' states and their ContactEmail statuses (for
    // suppression) come back together. The leases are committed without waiting for the WAL
    // flush: losing one in a database crash can only lead to a repeated attempt (at-least-once),
    // never to a lost message.
    const rows: ClaimedRow[] = await this.ds.query(
      `WITH relaxed AS (SELECT set_config('synchronous_commit', 'off', true)),
       req AS (
         SELECT * FROM unnest($1::uuid[], $2::timestamptz[], $3::timestamptz[]) AS t(id, now, until)
       ),
       claimed AS (
         UPDATE messages m SET lease_until = req.until, updated_at = req.now
           FROM req
          WHERE m.id = req.id AND m.next_attempt_at IS NOT NULL AND m.next_attempt_at <= req.now
            AND (m.lease_until IS NULL OR m.lease_until < req.now)
          RETURNING m.id, m.organization_id, m.job_id, m.message_id, m.sender_address,
                    m.campaign_id, m.contact_id, m.tags, m.track_opens, m.track_clicks,
                    m.created_at, m.content, m.raw)
       SELECT c.*,
              EXISTS (SELECT 1 FROM webhook_endpoints e
                       WHERE e.organization_id = c.organization_id AND e.is_active
                         AND e.events && $4::text[]) AS outcome_events,
              (SELECT json_agg(json_build_object('idx', r.idx, 'kind', r.kind, 'address', r.address,
                        'status', r.status, 'retry_count', r.retry_count,
                        'next_attempt_at', r.next_attempt_at, 'first_attempt_at', r.first_attempt_at,
                        'contact_status', ce.status)
                        ORDER BY r.idx)
                 FROM message_recipients r
                 LEFT JOIN contact_emails ce
                   ON ce.organization_id = c.organization_id AND ce.email_hash = r.address_hash
                WHERE r.message_id = c.id) AS recipients
         FROM claimed c, relaxed`,
      [
        items.map((i) => i.id),
        items.map((i) => i.now),
        items.map((i) => new Date(i.now.getTime() + i.leaseMs)),
        EMAIL_OUTCOME_EVENT_TYPES,
      ],
    );
    const cipher = fieldCipher();
    const byId = new Map(rows.map((row) => [row.id, row]));
    const out: (ClaimedMessage | null | Error)[] = [];
    for (const item of items) {
      const row = byId.get(item.id);
      // The same message twice in one batch: only the first caller holds the lease.
      if (!row) {
        out.push(null);
        continue;
      }
      byId.delete(item.id);
      // Decrypting and parsing megabytes of content takes milliseconds: each such message is
      // read in an event-loop turn of its own, not in one turn with the statement's whole batch.
      if (row.content.length > LARGE_CONTENT_CHARS) await nextTurn();
      try {
        out.push(this.readClaimed(row, cipher));
      } catch (err) {
        out.push(err instanceof Error ? err : new Error(String(err)));
      }
    }
    return out;
  }

  private readClaimed(row: ClaimedRow, cipher: FieldCipher): ClaimedMessage {
    const date = (v: string | null) => (v === null ? null : new Date(v));
    return {
      id: row.id,
      organizationId: row.organization_id,
      jobId: row.job_id,
      messageId: row.message_id,
      senderAddress: row.sender_address,
      campaignId: row.campaign_id,
      contactId: row.contact_id,
      tags: row.tags,
      trackOpens: row.track_opens,
      trackClicks: row.track_clicks,
      createdAt: row.created_at,
      content: JSON.parse(cipher.decrypt(row.content)) as MessageContent,
      raw: row.raw ? cipher.decryptBytes(row.raw) : undefined,
      outcomeEvents: row.outcome_events,
      recipients: (row.recipients ?? []).map((r) => ({
        idx: r.idx,
        kind: r.kind,
        email: cipher.decrypt(r.address),
        status: r.status,
        retryCount: r.retry_count,
        nextAttemptAt: date(r.next_attempt_at),
        firstAttemptAt: date(r.first_attempt_at),
        contactStatus: r.contact_status,
      })),
    };
  }

  /**
   * Writes the attempts of one delivery run, the recipients' new states and the message's status
   * and next due time, and releases the lease: one statement, so atomic. Runs of concurrent
   * deliveries share a statement; the webhook events of the attempts join it in a transaction
   * (an event exists exactly when its attempt is recorded); `also` (bounce bookkeeping) makes it
   * a transaction of its own. Returns the dispatch sequence of the follow-up job.
   */
  recordRun(
    message: ClaimedMessage,
    attempts: AttemptRecord[],
    recipients: RecipientState[],
    outcome: { status: MessageStatus; nextAttemptAt: Date | null; completedAt: Date | null },
    events: WebhookEvent[] = [],
    also?: (em: EntityManager) => Promise<void>,
  ): Promise<number> {
    const run: RunRecord = { message, attempts, recipients, outcome, events };
    if (!also) return this.runs.push(run);
    return this.ds.transaction(async (em) => {
      await also(em);
      return (await this.recordWithEvents([run], em))[0];
    });
  }

  private readonly runs = new MicroBatcher<RunRecord, number>(
    (items) => this.recordBatch(items),
    (item) => this.recordBatch([item]).then((r) => r[0]),
  );

  /** One statement, or a transaction when some run raises webhook events. */
  private recordBatch(runs: RunRecord[]): Promise<number[]> {
    if (!runs.some((r) => r.events.length)) return this.recordMany(runs);
    return this.ds.transaction((em) => this.recordWithEvents(runs, em));
  }

  private async recordWithEvents(runs: RunRecord[], em: EntityManager): Promise<number[]> {
    const seqs = await this.recordMany(runs, em);
    await this.events.within(
      em,
      runs.flatMap((r) => r.events),
    );
    return seqs;
  }

  private async recordMany(runs: RunRecord[], em?: EntityManager): Promise<number[]> {
    const attempts = runs.flatMap((r) => r.attempts.map((a) => ({ run: r, a })));
    const recipients = runs.flatMap((r) => r.recipients.map((x) => ({ run: r, x })));
    const statement = sql`WITH attempts AS (
         INSERT INTO message_attempts (message_id, organization_id, recipient_idx, status,
           smtp_code, smtp_message, mx_host, outbound_ip, retry_count, attempted_at)
         SELECT * FROM unnest(
           ${attempts.map(({ run }) => run.message.id)}::uuid[],
           ${attempts.map(({ run }) => run.message.organizationId)}::uuid[],
           ${attempts.map(({ a }) => a.recipientIdx)}::smallint[],
           ${attempts.map(({ a }) => a.status)}::text[],
           ${attempts.map(({ a }) => a.smtpCode)}::int[],
           ${attempts.map(({ a }) => a.smtpMessage)}::text[],
           ${attempts.map(({ a }) => a.mxHost)}::text[],
           ${attempts.map(({ a }) => a.outboundIp)}::text[],
           ${attempts.map(({ a }) => a.retryCount)}::int[],
           ${attempts.map(({ a }) => a.attemptedAt)}::timestamptz[])
       ), recipients AS (
         UPDATE message_recipients r
            SET status = t.status, retry_count = t.retry_count, next_attempt_at = t.next_at,
                first_attempt_at = t.first_at
           FROM unnest(
                ${recipients.map(({ run }) => run.message.id)}::uuid[],
                ${recipients.map(({ x }) => x.idx)}::smallint[],
                ${recipients.map(({ x }) => x.status)}::text[],
                ${recipients.map(({ x }) => x.retryCount)}::int[],
                ${recipients.map(({ x }) => x.nextAttemptAt)}::timestamptz[],
                ${recipients.map(({ x }) => x.firstAttemptAt)}::timestamptz[])
                AS t(message_id, idx, status, retry_count, next_at, first_at)
          WHERE r.message_id = t.message_id AND r.idx = t.idx
       )
       UPDATE messages m
          SET status = t.status, next_attempt_at = t.next_at, completed_at = t.completed_at,
              lease_until = NULL, dispatch_seq = m.dispatch_seq + 1, updated_at = now()
         FROM unnest(
              ${runs.map((r) => r.message.id)}::uuid[],
              ${runs.map((r) => r.outcome.status)}::text[],
              ${runs.map((r) => r.outcome.nextAttemptAt)}::timestamptz[],
              ${runs.map((r) => r.outcome.completedAt)}::timestamptz[])
              AS t(id, status, next_at, completed_at)
        WHERE m.id = t.id
        RETURNING m.id, m.dispatch_seq`;
    type Row = { id: string; dispatch_seq: number };
    const rows = await query<Row>(em ?? this.ds, statement);
    const seq = new Map(rows.map((r) => [r.id, r.dispatch_seq]));
    return runs.map((r) => seq.get(r.message.id) ?? 0);
  }

  /**
   * The message and recipient an event of `type` is about; null when they are gone or when no
   * active endpoint of the organization subscribes to `type` (the event would go nowhere).
   */
  async eventRef(
    organizationId: string,
    id: string,
    recipientIdx: number,
    type: EventType,
  ): Promise<EmailEventRef | null> {
    const rows: {
      job_id: string;
      message_id: string;
      campaign_id: string | null;
      contact_id: string | null;
      tags: string[];
      kind: RecipientState['kind'];
      address: string;
    }[] = await this.ds.query(
      `SELECT m.job_id, m.message_id, m.campaign_id, m.contact_id, m.tags, r.kind, r.address
         FROM messages m JOIN message_recipients r ON r.message_id = m.id
        WHERE m.organization_id = $1 AND m.id = $2 AND r.idx = $3
          AND EXISTS (SELECT 1 FROM webhook_endpoints e
                       WHERE e.organization_id = $1 AND e.is_active AND $4 = ANY(e.events))`,
      [organizationId, id, recipientIdx, type],
    );
    const r = rows[0];
    if (!r) return null;
    return {
      organizationId,
      jobId: r.job_id,
      messageId: r.message_id,
      campaignId: r.campaign_id,
      contactId: r.contact_id,
      tags: r.tags,
      recipient: { email: fieldCipher().decrypt(r.address), kind: r.kind },
    };
  }

  /** Gives the lease back without a result (the run failed before anything was recorded). */
  async releaseLease(id: string): Promise<void> {
    await this.ds.query(`UPDATE messages SET lease_until = NULL WHERE id = $1`, [id]);
  }

  /**
   * Sweeper: in one transaction, locks up to `limit` messages that have been due for longer than
   * the grace period, are not leased and come after `after` in due order (SKIP LOCKED: replicas
   * split the work), lets `decide` say which lost their queue job, and bumps their dispatch
   * sequence so a fresh job id can be used. Returns those, how many rows were scanned, and the
   * position of the last one (the next scan starts after it).
   */
  async sweepDue(
    now: Date,
    graceMs: number,
    limit: number,
    after: SweepCursor | null,
    decide: (rows: { id: string; dispatchSeq: number }[]) => Promise<string[]>,
  ): Promise<{
    lost: { id: string; dispatchSeq: number }[];
    scanned: number;
    last: SweepCursor | null;
  }> {
    return this.ds.transaction(async (em) => {
      const rows: { id: string; dispatch_seq: number; due_at: string }[] = await em.query(
        `SELECT id, dispatch_seq,
                to_char(next_attempt_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS due_at
          FROM messages
          WHERE next_attempt_at IS NOT NULL AND next_attempt_at <= $1
            AND (lease_until IS NULL OR lease_until < $2)
            AND ($4::timestamptz IS NULL OR (next_attempt_at, id) > ($4::timestamptz, $5::uuid))
          ORDER BY next_attempt_at, id
          LIMIT $3
          FOR UPDATE SKIP LOCKED`,
        [new Date(now.getTime() - graceMs), now, limit, after?.dueAt ?? null, after?.id ?? null],
      );
      const tail = rows.at(-1);
      const last = tail ? { dueAt: tail.due_at, id: tail.id } : null;
      const lost = await decide(rows.map((r) => ({ id: r.id, dispatchSeq: r.dispatch_seq })));
      if (!lost.length) return { lost: [], scanned: rows.length, last };
      const bumped = await query<{ id: string; dispatch_seq: number }>(
        em,
        sql`UPDATE messages SET dispatch_seq = dispatch_seq + 1 WHERE id = ANY(${lost}::uuid[])
            RETURNING id, dispatch_seq`,
      );
      return {
        lost: bumped.map((r) => ({
          id: r.id,
          dispatchSeq: r.dispatch_seq,
        })),
        scanned: rows.length,
        last,
      };
    });
  }

  /** Retention: deletes up to `batch` messages older than their organization's retention. */
  async purgeExpired(now: Date, batch: number): Promise<string[]> {
    const rows = await query<{ id: string }>(
      this.ds,
      sql`DELETE FROM messages WHERE id IN (
         SELECT m.id FROM messages m JOIN organizations o ON o.id = m.organization_id
          WHERE m.created_at < ${now}::timestamptz - make_interval(days => o.message_retention_days)
          LIMIT ${batch}
          FOR UPDATE OF m SKIP LOCKED)
       RETURNING id`,
    );
    return rows.map((r) => r.id);
  }
}
