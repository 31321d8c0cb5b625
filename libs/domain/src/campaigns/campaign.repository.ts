// All SQL of one organization's campaigns and their recipients (the fan-out's work list); the
// scan for due campaigns across organizations is campaign.sweeper.ts.
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { OrgId } from '../common/org-id';
import { PageRequest, pageOffset } from '../common/pagination';
import { query, sql } from '../database/sql';
import { MESSAGE_STATUSES, MessageStatus } from '../messaging/message.types';
import { Campaign, CampaignChannel, CampaignContent, CampaignStatus } from './campaign.entity';

/** A sending campaign as the fan-out reads it. */
export interface SendingCampaign {
  id: string;
  organizationId: OrgId;
  name: string;
  content: CampaignContent;
  subject: string | null;
  html: string | null;
  text: string | null;
  from: string | null;
  quietStart: number | null;
  quietEnd: number | null;
  startedAt: Date;
}

/**
 * A recipient claimed for one try: its channel, and for email its (encrypted) address, null when
 * the ContactEmail is gone.
 */
export interface ClaimedRecipient {
  contactId: string;
  channel: CampaignChannel;
  /** The contact's IANA time zone, for quiet hours. */
  timezone: string | null;
  encryptedEmail: string | null;
  attempts: number;
}

/** How a try at one recipient ended. */
export type RecipientOutcome =
  | { kind: 'sent'; jobId: string | null }
  | { kind: 'held'; until: Date; error: string }
  | { kind: 'failed'; error: string };

export interface CampaignCounts {
  recipientCount: number;
  sentCount: number;
  failedCount: number;
  unreachableCount: number;
}

/** How many of a campaign's recipients or messages are on one channel in one status. */
export interface ChannelStatusCount {
  channel: string;
  status: string;
  n: number;
}

/** How many of a campaign's messages are in each delivery status. */
export type CampaignDelivery = Record<MessageStatus, number>;

@Injectable()
export class CampaignRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  private em(em?: EntityManager): EntityManager {
    return em ?? this.ds.manager;
  }

  // ---- campaigns -------------------------------------------------------------------------------

  list(
    organizationId: OrgId,
    q: PageRequest & { status?: CampaignStatus },
  ): Promise<[Campaign[], number]> {
    return this.ds.manager.findAndCount(Campaign, {
      where: { organizationId, ...(q.status ? { status: q.status } : {}) },
      order: { createdAt: 'DESC', id: 'DESC' },
      skip: pageOffset(q),
      take: q.limit,
    });
  }

  /** The campaign, locked FOR UPDATE with `lock` (inside a transaction). */
  find(
    organizationId: OrgId,
    id: string,
    opts: { em?: EntityManager; lock?: boolean } = {},
  ): Promise<Campaign | null> {
    return this.em(opts.em).findOne(Campaign, {
      where: { organizationId, id },
      ...(opts.lock ? { lock: { mode: 'pessimistic_write' as const } } : {}),
    });
  }

  async insert(organizationId: OrgId, fields: Partial<Campaign>): Promise<string> {
    const saved = await this.ds.manager.save(
      this.ds.manager.create(Campaign, { ...fields, organizationId }),
    );
    return saved.id;
  }

  async update(
    organizationId: OrgId,
    id: string,
    patch: Partial<Campaign>,
    em: EntityManager,
  ): Promise<void> {
    await em.update(Campaign, { organizationId, id }, patch);
  }

  async delete(organizationId: OrgId, id: string, em: EntityManager): Promise<void> {
    await em.delete(Campaign, { organizationId, id });
  }

  /** Records the recipients not yet sent failed, and the campaign cancelled. */
  async cancel(organizationId: OrgId, id: string, now: Date, em: EntityManager): Promise<void> {
    const [dropped] = await query<{ n: number }>(
      em,
      sql`WITH d AS (
            UPDATE campaign_recipients
               SET status = 'failed', error = 'Campaign cancelled', updated_at = now()
             WHERE organization_id = ${organizationId} AND campaign_id = ${id}
               AND status IN ('pending','held')
            RETURNING 1)
          SELECT count(*)::int AS n FROM d`,
    );
    await query(
      em,
      sql`UPDATE campaigns SET status = 'cancelled', failed_count = failed_count + ${dropped.n},
                 completed_at = ${now}, updated_at = now()
           WHERE organization_id = ${organizationId} AND id = ${id}`,
    );
  }

  /**
   * The campaign's recipients by channel and status (the work list), and its messages in the log
   * by channel and delivery status.
   */
  async channelCounts(
    organizationId: OrgId,
    campaignId: string,
    em?: EntityManager,
  ): Promise<{ recipients: ChannelStatusCount[]; messages: ChannelStatusCount[] }> {
    const [recipients, messages] = await Promise.all([
      query<ChannelStatusCount>(
        this.em(em),
        sql`SELECT coalesce(channel, 'none') AS channel, status, count(*)::int AS n
              FROM campaign_recipients
             WHERE organization_id = ${organizationId} AND campaign_id = ${campaignId}
             GROUP BY 1, 2`,
      ),
      query<ChannelStatusCount>(
        this.em(em),
        sql`SELECT channel, status, count(*)::int AS n FROM messages
             WHERE organization_id = ${organizationId} AND campaign_id = ${campaignId}
             GROUP BY 1, 2`,
      ),
    ]);
    return { recipients, messages };
  }

  // ---- the fan-out -----------------------------------------------------------------------------

  /** The campaign if it is sending and no other transaction holds it (SKIP LOCKED). */
  async lockSending(
    organizationId: OrgId,
    id: string,
    em: EntityManager,
  ): Promise<SendingCampaign | null> {
    const [row] = await query<SendingCampaign>(
      em,
      sql`SELECT id, organization_id AS "organizationId", name, content, subject, html, text,
                 from_address AS "from", quiet_start AS "quietStart", quiet_end AS "quietEnd",
                 started_at AS "startedAt"
            FROM campaigns
           WHERE organization_id = ${organizationId} AND id = ${id} AND status = 'sending'
           FOR NO KEY UPDATE SKIP LOCKED`,
    );
    return row ?? null;
  }

  /** Up to `limit` due recipients, locked (SKIP LOCKED), their attempt counted. */
  claimDue(
    organizationId: OrgId,
    campaignId: string,
    now: Date,
    limit: number,
    em: EntityManager,
  ): Promise<ClaimedRecipient[]> {
    return query<ClaimedRecipient>(
      em,
      sql`WITH due AS (
            SELECT contact_id FROM campaign_recipients
             WHERE organization_id = ${organizationId} AND campaign_id = ${campaignId}
               AND status IN ('pending','held') AND next_attempt_at <= ${now}
             ORDER BY next_attempt_at, contact_id
             LIMIT ${limit}
             FOR UPDATE SKIP LOCKED),
          claimed AS (
            UPDATE campaign_recipients r
               SET attempts = r.attempts + 1, updated_at = now()
              FROM due
             WHERE r.organization_id = ${organizationId} AND r.campaign_id = ${campaignId}
               AND r.contact_id = due.contact_id
            RETURNING r.contact_id, r.channel, r.attempts,
                      (SELECT c.timezone FROM contacts c
                        WHERE c.organization_id = ${organizationId} AND c.id = r.contact_id)
                        AS timezone,
                      (SELECT e.email FROM contact_emails e
                        WHERE e.organization_id = ${organizationId}
                          AND e.id = r.contact_email_id) AS email)
          SELECT contact_id AS "contactId", channel, timezone, email AS "encryptedEmail", attempts
            FROM claimed`,
    );
  }

  /** The campaign's messages still in the log, by delivery status (GET /campaigns/{id}). */
  async deliveryCounts(organizationId: OrgId, campaignId: string): Promise<CampaignDelivery> {
    const rows = await query<{ status: MessageStatus; n: number }>(
      this.ds,
      sql`SELECT status, count(*)::int AS n FROM messages
           WHERE organization_id = ${organizationId} AND campaign_id = ${campaignId}
           GROUP BY status`,
    );
    const counts = Object.fromEntries(MESSAGE_STATUSES.map((s) => [s, 0])) as CampaignDelivery;
    for (const r of rows) counts[r.status] = r.n;
    return counts;
  }

  /** Contacts among `contactIds` that already have a message of the campaign, with its job id. */
  async messagesSent(
    organizationId: OrgId,
    campaignId: string,
    contactIds: string[],
    em: EntityManager,
  ): Promise<Map<string, string>> {
    if (!contactIds.length) return new Map();
    const rows = await query<{ contact_id: string; job_id: string }>(
      em,
      sql`SELECT DISTINCT ON (contact_id) contact_id, job_id FROM messages
           WHERE organization_id = ${organizationId} AND campaign_id = ${campaignId}
             AND contact_id = ANY(${contactIds}::uuid[])
           ORDER BY contact_id, created_at`,
    );
    return new Map(rows.map((r) => [r.contact_id, r.job_id]));
  }

  /** Records how each try of a batch ended, in one statement. */
  async recordOutcomes(
    organizationId: OrgId,
    campaignId: string,
    tries: { contactId: string; outcome: RecipientOutcome }[],
    now: Date,
    em: EntityManager,
  ): Promise<void> {
    if (!tries.length) return;
    const held = (o: RecipientOutcome) => (o.kind === 'held' ? o.until : null);
    await query(
      em,
      sql`UPDATE campaign_recipients r
             SET status = t.status, job_id = coalesce(t.job_id, r.job_id),
                 sent_at = CASE WHEN t.status = 'sent' THEN ${now}::timestamptz ELSE r.sent_at END,
                 next_attempt_at = coalesce(t.until, r.next_attempt_at), error = t.error,
                 updated_at = now()
            FROM unnest(${tries.map((t) => t.contactId)}::uuid[],
                        ${tries.map((t) => t.outcome.kind)}::text[],
                        ${tries.map((t) => (t.outcome.kind === 'sent' ? t.outcome.jobId : null))}::text[],
                        ${tries.map((t) => held(t.outcome))}::timestamptz[],
                        ${tries.map((t) => (t.outcome.kind === 'sent' ? null : t.outcome.error))}::text[])
                 AS t(contact_id, status, job_id, until, error)
           WHERE r.organization_id = ${organizationId} AND r.campaign_id = ${campaignId}
             AND r.contact_id = t.contact_id`,
    );
  }

  async addCounts(
    organizationId: OrgId,
    id: string,
    sent: number,
    failed: number,
    em: EntityManager,
  ): Promise<void> {
    await query(
      em,
      sql`UPDATE campaigns
             SET sent_count = sent_count + ${sent}, failed_count = failed_count + ${failed},
                 updated_at = now()
           WHERE organization_id = ${organizationId} AND id = ${id}`,
    );
  }

  /** The recipients of each channel, and how many of them were sent and failed. */
  async sentByChannel(
    organizationId: OrgId,
    campaignId: string,
    em: EntityManager,
  ): Promise<Record<string, { recipients: number; sent: number; failed: number }>> {
    const rows = await query<{ channel: string; recipients: number; sent: number; failed: number }>(
      em,
      sql`SELECT channel, count(*)::int AS recipients,
                 count(*) FILTER (WHERE status = 'sent')::int AS sent,
                 count(*) FILTER (WHERE status = 'failed')::int AS failed
            FROM campaign_recipients
           WHERE organization_id = ${organizationId} AND campaign_id = ${campaignId}
             AND channel IS NOT NULL
           GROUP BY channel`,
    );
    return Object.fromEntries(rows.map(({ channel, ...n }) => [channel, n]));
  }

  /** Marks the campaign sent when no recipient is pending or held; its counts when it did. */
  async completeIfDone(
    organizationId: OrgId,
    id: string,
    now: Date,
    em: EntityManager,
  ): Promise<CampaignCounts | null> {
    const [row] = await query<CampaignCounts>(
      em,
      sql`UPDATE campaigns SET status = 'sent', completed_at = ${now}, updated_at = now()
           WHERE organization_id = ${organizationId} AND id = ${id} AND status = 'sending'
             AND NOT EXISTS (SELECT 1 FROM campaign_recipients
                              WHERE organization_id = ${organizationId} AND campaign_id = ${id}
                                AND status IN ('pending','held'))
          RETURNING recipient_count AS "recipientCount", sent_count AS "sentCount",
                    failed_count AS "failedCount", unreachable_count AS "unreachableCount"`,
    );
    return row ?? null;
  }
}
