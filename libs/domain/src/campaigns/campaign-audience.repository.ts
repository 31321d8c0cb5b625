// The SQL of a campaign's audience (§11, §17): who it reaches, on which channel each.
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { CHANNEL_RECORDS, UNSENDABLE_RECORD_STATUSES } from '../channels/channel-message';
import { PROVIDER_CHANNELS } from '../channels/provider-adapter';
import type { OrgId } from '../common/org-id';
import { SUPPRESSED_EMAIL_STATUSES } from '../contacts/contact-channels.entity';
import { query, raw, sql, Sql } from '../database/sql';
import type { CampaignChannel } from './campaign.entity';

/**
 * Whether the contact `a.id` has a record of channel `t.channel` that may be sent to (SQL `WHEN`
 * branches, over every channel).
 */
const REACHABLE_CASES = [
  `WHEN 'email' THEN EXISTS (SELECT 1 FROM contact_emails x
     WHERE x.organization_id = a.organization_id AND x.contact_id = a.id
       AND x.status NOT IN (${SUPPRESSED_EMAIL_STATUSES.map((st) => `'${st}'`).join(',')}))`,
  ...PROVIDER_CHANNELS.map((channel) => {
    const r = CHANNEL_RECORDS[channel];
    const refused = UNSENDABLE_RECORD_STATUSES[channel].map((st) => `'${st}'`).join(',');
    const linked = channel === 'telegram' ? 'AND x.chat_id IS NOT NULL' : '';
    return `WHEN '${channel}' THEN EXISTS (SELECT 1 FROM ${r.table} x
     WHERE x.organization_id = a.organization_id AND x.contact_id = a.id
       AND x.status NOT IN (${refused}) ${linked})`;
  }),
].join('\n');
const SUPPRESSED = [...SUPPRESSED_EMAIL_STATUSES];

/**
 * A list's subscribed members, or contacts named by id (a batch of a segment's contacts, which
 * the segments area hands out).
 */
export type Audience = { listId: string } | { contactIds: string[] };

@Injectable()
export class CampaignAudienceRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** The list's preferred channels, in order (none when the list is gone). */
  async preferredChannels(orgId: OrgId, listId: string): Promise<string[]> {
    const [row] = await query<{ channels: string[] }>(
      this.ds,
      sql`SELECT preferred_channels AS channels FROM contact_lists
           WHERE organization_id = ${orgId} AND id = ${listId}`,
    );
    return row?.channels ?? [];
  }

  async listExists(orgId: OrgId, listId: string, em?: EntityManager): Promise<boolean> {
    const rows = await query(
      em ?? this.ds.manager,
      sql`SELECT 1 FROM contact_lists WHERE organization_id = ${orgId} AND id = ${listId}`,
    );
    return rows.length > 0;
  }

  /**
   * Each contact of the audience with the first of `channels` it can be reached on (null when
   * none): a channel the organization sends on (email, and those with a provider account not
   * disabled) on which the contact has a record that may be sent to (a Telegram record once its
   * chat is linked); for email, the ContactEmail (the primary, else the oldest, of those that may
   * be sent to). The audience is a list's subscribed members, or the contacts of the organization
   * among `contactIds`. Columns: contact_id, channel, contact_email_id.
   */
  private choice(orgId: OrgId, audience: Audience, channels: CampaignChannel[]): Sql {
    const contacts =
      'listId' in audience
        ? sql`SELECT m.contact_id AS id, m.organization_id FROM contact_list_memberships m
               WHERE m.organization_id = ${orgId} AND m.contact_list_id = ${audience.listId}
                 AND m.status = 'subscribed'`
        : sql`SELECT c.id, c.organization_id FROM contacts c
               WHERE c.organization_id = ${orgId}
                 AND c.id = ANY(${audience.contactIds}::uuid[])`;
    return sql`WITH open AS (
            SELECT DISTINCT channel FROM channel_providers
             WHERE organization_id = ${orgId} AND status <> 'disabled'
            UNION ALL SELECT 'email'),
          tried AS (
            SELECT o.channel, o.pos
              FROM unnest(${channels}::text[]) WITH ORDINALITY AS o(channel, pos)
             WHERE o.channel IN (SELECT channel FROM open))
          SELECT a.id AS contact_id, ch.channel, e.id AS contact_email_id
            FROM (${contacts}) a
            LEFT JOIN LATERAL (
              SELECT t.channel FROM tried t
               WHERE CASE t.channel ${raw(REACHABLE_CASES)} END
               ORDER BY t.pos LIMIT 1) ch ON true
            LEFT JOIN LATERAL (
              SELECT ce.id FROM contact_emails ce
               WHERE ch.channel = 'email' AND ce.organization_id = ${orgId}
                 AND ce.contact_id = a.id AND ce.status <> ALL(${SUPPRESSED}::text[])
               ORDER BY ce.is_primary DESC, ce.created_at, ce.id
               LIMIT 1) e ON true`;
  }

  /**
   * One recipient per contact of the audience, on the channel `choice` gives it; a contact
   * reachable on none is recorded `unreachable`. Idempotent.
   */
  async addRecipients(
    orgId: OrgId,
    campaignId: string,
    audience: Audience,
    channels: CampaignChannel[],
    now: Date,
    em: EntityManager,
  ): Promise<void> {
    await query(
      em,
      sql`INSERT INTO campaign_recipients (campaign_id, contact_id, organization_id,
                                           contact_email_id, channel, status, next_attempt_at)
          SELECT ${campaignId}, x.contact_id, ${orgId}, x.contact_email_id, x.channel,
                 CASE WHEN x.channel IS NULL THEN 'unreachable' ELSE 'pending' END, ${now}
            FROM (${this.choice(orgId, audience, channels)}) x
          ON CONFLICT (campaign_id, contact_id) DO NOTHING`,
    );
  }

  /** How many contacts of the audience each channel would reach now (null: none), sending nothing. */
  async reach(
    orgId: OrgId,
    audience: Audience,
    channels: CampaignChannel[],
  ): Promise<{ channel: CampaignChannel | null; n: number }[]> {
    return query(
      this.ds,
      sql`SELECT x.channel, count(*)::int AS n
            FROM (${this.choice(orgId, audience, channels)}) x
           GROUP BY x.channel`,
    );
  }

  /** The campaign's recipients to send to, and the contacts reachable on none of its channels. */
  async recipientCounts(
    orgId: OrgId,
    campaignId: string,
    em: EntityManager,
  ): Promise<{ reachable: number; unreachable: number }> {
    const [row] = await query<{ reachable: number; unreachable: number }>(
      em,
      sql`SELECT count(*) FILTER (WHERE status <> 'unreachable')::int AS reachable,
                 count(*) FILTER (WHERE status = 'unreachable')::int AS unreachable
            FROM campaign_recipients
           WHERE organization_id = ${orgId} AND campaign_id = ${campaignId}`,
    );
    return row;
  }
}
