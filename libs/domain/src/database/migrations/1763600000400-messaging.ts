// Messaging baseline (§8): the message log — one message per send job, its recipients with their
// delivery state, and every delivery attempt. Engagement events have their own baseline.
import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Message content and recipient addresses are encrypted at rest; recipients also carry a blind
 * index for the `recipient` filter. A message relayed over SMTP keeps its raw RFC 5322 bytes in
 * `messages.raw`, encrypted as bytes; STORAGE EXTERNAL because ciphertext does not compress, so
 * PostgreSQL stores it out of line without trying.
 *
 * A message beyond email (§17) names its channel and the provider account it goes out through;
 * its one recipient's address is the channel's own (a phone number, a device token), blind-indexed
 * as the contact's channel records are, and the provider's id for it arrives with its acceptance
 * (`provider_message_id`, what status callbacks name). `sent` is a provider's acceptance without a
 * receipt yet; an attempt keeps the provider's own error code and the SMS segment count.
 *
 * Fillfactor 60 on messages and message_recipients leaves room on each page for the delivery
 * worker's new row versions: the claim (lease_until, updated_at) and a recipient's new state
 * change no indexed column, so they are HOT updates (no new index entries, a fraction of the WAL).
 */
export class Messaging1763600000400 implements MigrationInterface {
  name = 'Messaging1763600000400';

  async up(q: QueryRunner): Promise<void> {
    // --- messages --------------------------------------------------------------------------------
    await q.query(`
      CREATE TABLE messages (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        job_id text NOT NULL UNIQUE,
        message_id text NOT NULL,
        source text NOT NULL DEFAULT 'api' CHECK (source IN ('api','smtp','campaign')),
        channel text NOT NULL DEFAULT 'email'
          CHECK (channel IN ('email','sms','whatsapp','telegram','push','imessage')),
        provider_id uuid,
        sender_address text NOT NULL,
        campaign_id uuid,
        contact_id uuid,
        tags text[] NOT NULL DEFAULT '{}',
        track_opens boolean NOT NULL DEFAULT false,
        track_clicks boolean NOT NULL DEFAULT false,
        content text NOT NULL,
        status text NOT NULL DEFAULT 'queued'
          CHECK (status IN ('queued','deferred','sent','delivered','partially_delivered','bounced','failed','suppressed')),
        recipient_count int NOT NULL CHECK (recipient_count > 0),
        next_attempt_at timestamptz,
        lease_until timestamptz,
        dispatch_seq int NOT NULL DEFAULT 0,
        completed_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        raw bytea
      ) WITH (fillfactor = 60)`);
    await q.query(`ALTER TABLE messages ALTER COLUMN raw SET STORAGE EXTERNAL`);
    await q.query(
      `CREATE INDEX messages_org_created_idx ON messages (organization_id, created_at DESC, id DESC)`,
    );
    await q.query(
      `CREATE INDEX messages_org_channel_created_idx
         ON messages (organization_id, channel, created_at DESC, id DESC)`,
    );
    await q.query(
      `CREATE INDEX messages_org_campaign_idx ON messages (organization_id, campaign_id) WHERE campaign_id IS NOT NULL`,
    );
    await q.query(
      `CREATE INDEX messages_due_idx ON messages (next_attempt_at) WHERE next_attempt_at IS NOT NULL`,
    );
    await q.query(`CREATE INDEX messages_created_idx ON messages (created_at)`);

    // --- recipients ------------------------------------------------------------------------------
    await q.query(`
      CREATE TABLE message_recipients (
        message_id uuid NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
        idx smallint NOT NULL,
        organization_id uuid NOT NULL,
        kind text NOT NULL CHECK (kind IN ('to','cc','bcc')),
        address text NOT NULL,
        address_hash text COLLATE "C" NOT NULL,
        status text NOT NULL DEFAULT 'pending'
          CHECK (status IN ('pending','deferred','sent','delivered','bounced','failed','suppressed')),
        retry_count int NOT NULL DEFAULT 0,
        provider_message_id text,
        next_attempt_at timestamptz,
        first_attempt_at timestamptz,
        PRIMARY KEY (message_id, idx)
      ) WITH (fillfactor = 60)`);
    await q.query(
      `CREATE INDEX message_recipients_org_hash_idx ON message_recipients (organization_id, address_hash)`,
    );
    await q.query(
      `CREATE INDEX message_recipients_provider_message_idx
         ON message_recipients (organization_id, provider_message_id)
         WHERE provider_message_id IS NOT NULL`,
    );

    // --- attempts --------------------------------------------------------------------------------
    await q.query(`
      CREATE TABLE message_attempts (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        message_id uuid NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
        organization_id uuid NOT NULL,
        recipient_idx smallint NOT NULL,
        status text NOT NULL
          CHECK (status IN ('sent','delivered','deferred','bounced','failed','suppressed')),
        smtp_code int,
        smtp_message text,
        mx_host text,
        outbound_ip text,
        retry_count int NOT NULL,
        attempted_at timestamptz NOT NULL,
        provider_code text,
        segments smallint
      )`);
    await q.query(
      `CREATE INDEX message_attempts_message_idx ON message_attempts (message_id, attempted_at, id)`,
    );

    // --- short links (tracked links of an SMS) ---------------------------------------------------
    // The id is the link (`/t/c/{id}`): 12 random base62 characters, unguessable; the URL it
    // leads to is encrypted like the message's content.
    await q.query(`
      CREATE TABLE short_links (
        id text PRIMARY KEY,
        organization_id uuid NOT NULL,
        message_id uuid NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
        recipient_idx smallint NOT NULL,
        ordinal smallint NOT NULL,
        url text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (message_id, recipient_idx, ordinal)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of ['short_links', 'message_attempts', 'message_recipients', 'messages'])
      await q.query(`DROP TABLE ${t}`);
  }
}
