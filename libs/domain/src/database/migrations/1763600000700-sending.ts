// Sending baseline (§13, §14): the sending domains of each organization (DKIM key, record checks,
// the worker's check schedule), the Idempotency-Key records of the send API, the mail received on
// the inbound port (bounces, complaints, mailto unsubscribes) and the unsubscribes done.
import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A name is verified by at most one organization (the partial unique index); an organization
 * holds a name once. The DKIM private key is stored encrypted (field encryption, `v1:`), the
 * public key as the base64 SubjectPublicKeyInfo that the DKIM record publishes.
 *
 * Processes that cache an organization's verified domains (the send policy, the worker's signer)
 * learn of every committed change through NOTIFY `sending_domain_changed` with the organization id.
 *
 * - inbound_messages is the worker's durable work list: a message is committed here before the
 *   inbound port answers 250, and the worker claims due rows with SKIP LOCKED. One row per
 *   received message (DATA), whatever its recipient count: `recipients` are the addresses it was
 *   accepted for, `remote_ip` the client that sent it; mail to postmaster@ and abuse@ is kind
 *   `operator`, kept for the operator. `raw_sha256` (of the raw bytes) makes a replay a no-op at
 *   intake. The raw bytes are encrypted like a relayed message (they quote recipients'
 *   addresses); STORAGE EXTERNAL as ciphertext does not compress. Processed rows are purged after
 *   a week.
 * - unsubscribes records each message whose unsubscribe link or address was used, once: a repeat
 *   changes nothing. Keyed by the job id the token names; no foreign key to messages, as the log's
 *   retention purge must not take the record with it.
 * - campaign_recipients.job_id is looked up by a token whose message the retention has purged.
 */
export class Sending1763600000700 implements MigrationInterface {
  name = 'Sending1763600000700';

  async up(q: QueryRunner): Promise<void> {
    // --- sending domains -------------------------------------------------------------------------
    await q.query(`
      CREATE TABLE sending_domains (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        name text NOT NULL CHECK (name = lower(name) AND length(name) BETWEEN 3 AND 253),
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending','verified','failed')),
        dkim_selector text NOT NULL,
        dkim_public_key text NOT NULL,
        dkim_private_key text NOT NULL,
        record_checks jsonb NOT NULL DEFAULT '{}',
        verified_at timestamptz,
        last_checked_at timestamptz,
        next_check_at timestamptz,
        check_until timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (organization_id, name)
      )`);
    await q.query(
      `CREATE UNIQUE INDEX sending_domains_verified_name_uq ON sending_domains (name) WHERE status = 'verified'`,
    );
    await q.query(
      `CREATE INDEX sending_domains_org_created_idx ON sending_domains (organization_id, created_at DESC, id DESC)`,
    );
    await q.query(
      `CREATE INDEX sending_domains_due_idx ON sending_domains (next_check_at) WHERE next_check_at IS NOT NULL`,
    );
    await q.query(`
      CREATE FUNCTION sending_domain_changed_notify() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('sending_domain_changed', COALESCE(NEW.organization_id, OLD.organization_id)::text);
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER sending_domain_changed_notify AFTER INSERT OR UPDATE OR DELETE ON sending_domains
        FOR EACH ROW EXECUTE FUNCTION sending_domain_changed_notify()`);

    // --- idempotency keys ------------------------------------------------------------------------
    // response_body is null while the first request is in flight; claim_id tells that request's
    // own row from a later one that took over an abandoned key. json, not jsonb: a replay answers
    // the very text of the first response, keys in their order.
    await q.query(`
      CREATE TABLE idempotency_keys (
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        key text NOT NULL,
        request_hash text NOT NULL,
        claim_id uuid NOT NULL,
        response_body json,
        locked_until timestamptz,
        created_at timestamptz NOT NULL,
        PRIMARY KEY (organization_id, key)
      )`);
    await q.query(`CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (created_at)`);

    // --- inbound mail and unsubscribes (§14) ---------------------------------------------------
    await q.query(`
      CREATE TABLE inbound_messages (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        kind text NOT NULL CHECK (kind IN ('bounce','unsubscribe','feedback','operator')),
        recipients text[] NOT NULL CHECK (cardinality(recipients) BETWEEN 1 AND 100),
        raw bytea NOT NULL,
        raw_sha256 bytea NOT NULL,
        size int NOT NULL CHECK (size >= 0),
        remote_ip inet,
        status text NOT NULL DEFAULT 'received'
          CHECK (status IN ('received','processed','failed')),
        outcome text,
        organization_id uuid REFERENCES organizations(id) ON DELETE SET NULL,
        attempts int NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL DEFAULT now(),
        last_error text,
        received_at timestamptz NOT NULL DEFAULT now(),
        processed_at timestamptz
      )`);
    await q.query(`ALTER TABLE inbound_messages ALTER COLUMN raw SET STORAGE EXTERNAL`);
    await q.query(
      `CREATE INDEX inbound_messages_due_idx ON inbound_messages (next_attempt_at)
         WHERE status = 'received'`,
    );
    await q.query(
      `CREATE INDEX inbound_messages_processed_idx ON inbound_messages (processed_at)
         WHERE processed_at IS NOT NULL`,
    );
    await q.query(
      `CREATE UNIQUE INDEX inbound_messages_raw_sha256_uq ON inbound_messages (raw_sha256)`,
    );

    await q.query(`
      CREATE TABLE unsubscribes (
        job_id text PRIMARY KEY,
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        contact_id uuid REFERENCES contacts(id) ON DELETE SET NULL,
        source text NOT NULL CHECK (source IN ('one-click','mailto')),
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(
      `CREATE INDEX unsubscribes_org_created_idx ON unsubscribes (organization_id, created_at)`,
    );

    await q.query(
      `CREATE INDEX campaign_recipients_job_idx ON campaign_recipients (job_id)
         WHERE job_id IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX campaign_recipients_job_idx`);
    for (const t of ['unsubscribes', 'inbound_messages']) await q.query(`DROP TABLE ${t}`);
    await q.query(`DROP TABLE idempotency_keys`);
    await q.query(`DROP TABLE sending_domains`);
    await q.query(`DROP FUNCTION sending_domain_changed_notify()`);
  }
}
