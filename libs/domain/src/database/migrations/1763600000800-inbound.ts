// Inbound baseline (§14): mail received on the inbound SMTP port (bounces, complaints, mailto
// unsubscribes) kept until the worker has processed it, and the one-click unsubscribes done.
import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * - inbound_messages is the worker's durable work list: a message is committed here before the
 *   inbound port answers 250, and the worker claims due rows with SKIP LOCKED. The raw bytes are
 *   encrypted like a relayed message (they quote recipients' addresses); STORAGE EXTERNAL as
 *   ciphertext does not compress. Processed rows are purged after a week.
 * - unsubscribes records each message whose unsubscribe link or address was used, once: a repeat
 *   changes nothing. Keyed by the job id the token names; no foreign key to messages, as the log's
 *   retention purge must not take the record with it.
 * - campaign_recipients.job_id is looked up by a token whose message the retention has purged.
 */
export class Inbound1763600000800 implements MigrationInterface {
  name = 'Inbound1763600000800';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE inbound_messages (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        kind text NOT NULL CHECK (kind IN ('bounce','unsubscribe','feedback')),
        recipient text NOT NULL,
        raw bytea NOT NULL,
        size int NOT NULL CHECK (size >= 0),
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
  }
}
