// Campaigns baseline (§11): campaigns, their materialised recipients, recorded conversions with
// their daily rollup, and the message-log indexes the fan-out and the report read.
import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * - campaigns go out on their `channels` in order: each contact gets one message, on the first
 *   channel it can be reached on (campaign_recipients.channel; `unreachable` when none). The email
 *   fields are required only of a campaign with `email` among its channels; the content of every
 *   other channel is in `content`, by channel.
 * - quiet_start and quiet_end (minutes of the day) are a campaign's quiet hours, kept in each
 *   contact's time zone by the fan-out.
 * - campaigns target exactly one list or one segment. Neither is a foreign key: a list or segment
 *   deleted later must not take a sent campaign's history with it; the target is re-checked at send.
 * - campaign_recipients is the fan-out's durable work list: one row per (campaign, contact), so a
 *   restarted worker resumes where it stopped and never sends twice. It stores the channel chosen
 *   and, for email, the ContactEmail id, never an address.
 * - conversions are idempotent on (organization, order_id); the covering index serves the report's
 *   window scans without touching the heap.
 */
/** The channels a campaign may go out on, as SQL literals. */
const CHANNELS = `'email','sms','whatsapp','telegram','imessage','push'`;

export class Campaigns1763600000600 implements MigrationInterface {
  name = 'Campaigns1763600000600';

  async up(q: QueryRunner): Promise<void> {
    // --- campaigns -------------------------------------------------------------------------------
    await q.query(`
      CREATE TABLE campaigns (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        name text NOT NULL,
        channel text NOT NULL DEFAULT 'email' CHECK (channel IN (${CHANNELS})),
        channels text[] NOT NULL DEFAULT '{email}'
          CHECK (cardinality(channels) BETWEEN 1 AND 6 AND channels <@ ARRAY[${CHANNELS}]),
        content jsonb NOT NULL DEFAULT '{}',
        subject text,
        html text,
        text text,
        from_address text,
        list_id uuid,
        segment_id uuid,
        status text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft','sending','sent','cancelled')),
        recipient_count int NOT NULL DEFAULT 0 CHECK (recipient_count >= 0),
        sent_count int NOT NULL DEFAULT 0 CHECK (sent_count >= 0),
        failed_count int NOT NULL DEFAULT 0 CHECK (failed_count >= 0),
        unreachable_count int NOT NULL DEFAULT 0 CHECK (unreachable_count >= 0),
        quiet_start smallint CHECK (quiet_start BETWEEN 0 AND 1439),
        quiet_end smallint CHECK (quiet_end BETWEEN 0 AND 1439),
        started_at timestamptz,
        completed_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CHECK (num_nonnulls(list_id, segment_id) = 1),
        CHECK ((quiet_start IS NULL) = (quiet_end IS NULL)),
        CHECK (NOT 'email' = ANY(channels)
               OR (subject IS NOT NULL AND from_address IS NOT NULL
                   AND (html IS NOT NULL OR text IS NOT NULL)))
      )`);
    await q.query(
      `CREATE INDEX campaigns_org_created_idx ON campaigns (organization_id, created_at DESC, id DESC)`,
    );
    await q.query(
      `CREATE INDEX campaigns_sending_idx ON campaigns (started_at) WHERE status = 'sending'`,
    );

    // --- recipients (the fan-out's work list) ----------------------------------------------------
    await q.query(`
      CREATE TABLE campaign_recipients (
        campaign_id uuid NOT NULL REFERENCES campaigns(id) ON DELETE CASCADE,
        contact_id uuid NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        contact_email_id uuid REFERENCES contact_emails(id) ON DELETE SET NULL,
        channel text CHECK (channel IN (${CHANNELS})),
        status text NOT NULL DEFAULT 'pending'
          CHECK (status IN ('pending','sent','held','failed','unreachable')),
        next_attempt_at timestamptz NOT NULL,
        attempts int NOT NULL DEFAULT 0,
        job_id text,
        error text,
        sent_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (campaign_id, contact_id)
      )`);
    // The fan-out claims due rows of every campaign in due order.
    await q.query(
      `CREATE INDEX campaign_recipients_due_idx ON campaign_recipients (next_attempt_at)
         WHERE status IN ('pending','held')`,
    );
    await q.query(
      `CREATE INDEX campaign_recipients_campaign_status_idx ON campaign_recipients (campaign_id, status)`,
    );

    // --- conversions and their daily rollup ------------------------------------------------------
    await q.query(`
      CREATE TABLE conversions (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        campaign_id uuid NOT NULL REFERENCES campaigns(id) ON DELETE CASCADE,
        contact_id uuid REFERENCES contacts(id) ON DELETE SET NULL,
        order_id text NOT NULL,
        revenue numeric(14,2) NOT NULL CHECK (revenue >= 0),
        currency char(3) NOT NULL DEFAULT 'USD',
        channel text NOT NULL,
        occurred_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (organization_id, order_id)
      )`);
    await q.query(
      `CREATE INDEX conversions_org_occurred_idx ON conversions (organization_id, occurred_at)
         INCLUDE (revenue, campaign_id, channel)`,
    );
    await q.query(
      `CREATE INDEX conversions_campaign_occurred_idx ON conversions (campaign_id, occurred_at)
         INCLUDE (revenue, channel)`,
    );

    // Daily rollup of conversions per (organization, UTC day, campaign, channel), kept exact by
    // statement-level triggers in the same transaction as every insert, update or delete of a
    // conversion: the report reads whole days from here and only partial edge days from the
    // conversions themselves, so its cost follows days x campaigns x channels, not conversions.
    await q.query(`
      CREATE TABLE conversion_daily_stats (
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        day date NOT NULL,
        campaign_id uuid NOT NULL REFERENCES campaigns(id) ON DELETE CASCADE,
        channel text NOT NULL,
        revenue numeric(18,2) NOT NULL,
        conversions bigint NOT NULL,
        PRIMARY KEY (organization_id, day, campaign_id, channel)
      )`);
    await q.query(`
      CREATE FUNCTION conversion_stats_add() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        -- Sorted, so concurrent multi-row statements lock rollup rows in the same order.
        INSERT INTO conversion_daily_stats AS s
               (organization_id, day, campaign_id, channel, revenue, conversions)
        SELECT organization_id, (occurred_at AT TIME ZONE 'UTC')::date, campaign_id, channel,
               sum(revenue), count(*)
          FROM new_rows
         GROUP BY 1, 2, 3, 4
         ORDER BY 1, 2, 3, 4
        ON CONFLICT (organization_id, day, campaign_id, channel) DO UPDATE
           SET revenue = s.revenue + EXCLUDED.revenue,
               conversions = s.conversions + EXCLUDED.conversions;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE FUNCTION conversion_stats_remove() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        -- UPDATE, never upsert: when a cascade already removed the rollup row there is nothing
        -- to subtract from.
        UPDATE conversion_daily_stats s
           SET revenue = s.revenue - d.revenue, conversions = s.conversions - d.conversions
          FROM (SELECT organization_id, (occurred_at AT TIME ZONE 'UTC')::date AS day, campaign_id,
                       channel, sum(revenue) AS revenue, count(*) AS conversions
                  FROM old_rows
                 GROUP BY 1, 2, 3, 4
                 ORDER BY 1, 2, 3, 4) d
         WHERE s.organization_id = d.organization_id AND s.day = d.day
           AND s.campaign_id = d.campaign_id AND s.channel = d.channel;
        DELETE FROM conversion_daily_stats s
         USING (SELECT DISTINCT organization_id, (occurred_at AT TIME ZONE 'UTC')::date AS day,
                       campaign_id, channel FROM old_rows) d
         WHERE s.organization_id = d.organization_id AND s.day = d.day
           AND s.campaign_id = d.campaign_id AND s.channel = d.channel AND s.conversions <= 0;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE FUNCTION conversion_stats_move() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        -- Conversions are not edited through the API; this keeps the rollup exact should an
        -- operator correct one. A change of contact_id alone (a contact deleted) moves nothing.
        IF NOT EXISTS (
             SELECT 1 FROM old_rows o JOIN new_rows n ON n.id = o.id
              WHERE (o.organization_id, o.campaign_id, o.channel, o.revenue, o.occurred_at)
                    IS DISTINCT FROM
                    (n.organization_id, n.campaign_id, n.channel, n.revenue, n.occurred_at)) THEN
          RETURN NULL;
        END IF;
        UPDATE conversion_daily_stats s
           SET revenue = s.revenue - d.revenue, conversions = s.conversions - d.conversions
          FROM (SELECT organization_id, (occurred_at AT TIME ZONE 'UTC')::date AS day, campaign_id,
                       channel, sum(revenue) AS revenue, count(*) AS conversions
                  FROM old_rows GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4) d
         WHERE s.organization_id = d.organization_id AND s.day = d.day
           AND s.campaign_id = d.campaign_id AND s.channel = d.channel;
        INSERT INTO conversion_daily_stats AS s
               (organization_id, day, campaign_id, channel, revenue, conversions)
        SELECT organization_id, (occurred_at AT TIME ZONE 'UTC')::date, campaign_id, channel,
               sum(revenue), count(*)
          FROM new_rows GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
        ON CONFLICT (organization_id, day, campaign_id, channel) DO UPDATE
           SET revenue = s.revenue + EXCLUDED.revenue,
               conversions = s.conversions + EXCLUDED.conversions;
        DELETE FROM conversion_daily_stats s
         USING (SELECT DISTINCT organization_id, (occurred_at AT TIME ZONE 'UTC')::date AS day,
                       campaign_id, channel FROM old_rows) d
         WHERE s.organization_id = d.organization_id AND s.day = d.day
           AND s.campaign_id = d.campaign_id AND s.channel = d.channel AND s.conversions <= 0;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER conversions_stats_insert AFTER INSERT ON conversions
        REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION conversion_stats_add()`);
    await q.query(`
      CREATE TRIGGER conversions_stats_delete AFTER DELETE ON conversions
        REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION conversion_stats_remove()`);
    await q.query(`
      CREATE TRIGGER conversions_stats_update AFTER UPDATE ON conversions
        REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
        FOR EACH STATEMENT EXECUTE FUNCTION conversion_stats_move()`);

    // --- indexes on the message log --------------------------------------------------------------
    // Before the fan-out sends a recipient it checks whether a message of that (campaign,
    // contact) already exists (a worker that crashed after sending but before recording it).
    await q.query(
      `CREATE INDEX messages_campaign_contact_idx ON messages (campaign_id, contact_id)
         WHERE campaign_id IS NOT NULL`,
    );
    // The report counts the campaign emails delivered in its window without scanning every
    // attempt of the organization.
    await q.query(
      `CREATE INDEX message_attempts_org_delivered_idx ON message_attempts (organization_id, attempted_at)
         INCLUDE (message_id) WHERE status = 'delivered'`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX message_attempts_org_delivered_idx`);
    await q.query(`DROP INDEX messages_campaign_contact_idx`);
    for (const t of ['conversion_daily_stats', 'conversions', 'campaign_recipients', 'campaigns'])
      await q.query(`DROP TABLE ${t}`);
    for (const f of ['conversion_stats_add', 'conversion_stats_remove', 'conversion_stats_move'])
      await q.query(`DROP FUNCTION ${f}()`);
  }
}
