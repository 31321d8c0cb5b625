// Trust only what we signed (§14, §16):
// - inbound_messages keeps one row per received message (DATA), whatever its recipient count:
//   `recipients` are the addresses it was accepted for; `raw_sha256` (of the raw bytes) makes a
//   replayed report a no-op at intake; `remote_ip` is who sent it. Mail to `postmaster@` and
//   `abuse@` is kept for the operator (kind `operator`).
// - organizations.max_sending_domains overrides the plan's sending-domain limit.
// - login_ips records the client addresses each user signed in from, by HMAC, so that a stranger's
//   failed attempts cannot lock out a user at an address that signed in before.
import { MigrationInterface, QueryRunner } from 'typeorm';

export class Trust1763600000800 implements MigrationInterface {
  name = 'Trust1763600000800';

  async up(q: QueryRunner): Promise<void> {
    // --- inbound messages: one row per DATA ------------------------------------------------------
    await q.query(`ALTER TABLE inbound_messages ADD COLUMN recipients text[]`);
    await q.query(`UPDATE inbound_messages SET recipients = ARRAY[recipient]`);
    await q.query(`ALTER TABLE inbound_messages ALTER COLUMN recipients SET NOT NULL`);
    await q.query(
      `ALTER TABLE inbound_messages ADD CONSTRAINT inbound_messages_recipients_check
         CHECK (cardinality(recipients) BETWEEN 1 AND 100)`,
    );
    await q.query(`ALTER TABLE inbound_messages DROP COLUMN recipient`);
    await q.query(`ALTER TABLE inbound_messages DROP CONSTRAINT inbound_messages_kind_check`);
    await q.query(
      `ALTER TABLE inbound_messages ADD CONSTRAINT inbound_messages_kind_check
         CHECK (kind IN ('bounce','unsubscribe','feedback','operator'))`,
    );
    // Rows stored before this column held the ciphertext only: its digest is unique as well.
    await q.query(`ALTER TABLE inbound_messages ADD COLUMN raw_sha256 bytea`);
    await q.query(`UPDATE inbound_messages SET raw_sha256 = digest(raw, 'sha256')`);
    await q.query(`ALTER TABLE inbound_messages ALTER COLUMN raw_sha256 SET NOT NULL`);
    await q.query(
      `CREATE UNIQUE INDEX inbound_messages_raw_sha256_uq ON inbound_messages (raw_sha256)`,
    );
    await q.query(`ALTER TABLE inbound_messages ADD COLUMN remote_ip inet`);

    // --- sending-domain limit override -----------------------------------------------------------
    await q.query(
      `ALTER TABLE organizations ADD COLUMN max_sending_domains int
         CHECK (max_sending_domains >= 0)`,
    );

    // --- addresses users signed in from ----------------------------------------------------------
    await q.query(`
      CREATE TABLE login_ips (
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        ip_hash bytea NOT NULL,
        last_success_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (user_id, ip_hash)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE login_ips`);
    await q.query(`ALTER TABLE organizations DROP COLUMN max_sending_domains`);
    await q.query(`ALTER TABLE inbound_messages DROP COLUMN remote_ip`);
    await q.query(`DROP INDEX inbound_messages_raw_sha256_uq`);
    await q.query(`ALTER TABLE inbound_messages DROP COLUMN raw_sha256`);
    await q.query(`DELETE FROM inbound_messages WHERE kind = 'operator'`);
    await q.query(`ALTER TABLE inbound_messages DROP CONSTRAINT inbound_messages_kind_check`);
    await q.query(
      `ALTER TABLE inbound_messages ADD CONSTRAINT inbound_messages_kind_check
         CHECK (kind IN ('bounce','unsubscribe','feedback'))`,
    );
    await q.query(`ALTER TABLE inbound_messages ADD COLUMN recipient text`);
    await q.query(`UPDATE inbound_messages SET recipient = recipients[1]`);
    await q.query(`ALTER TABLE inbound_messages ALTER COLUMN recipient SET NOT NULL`);
    await q.query(`ALTER TABLE inbound_messages DROP CONSTRAINT inbound_messages_recipients_check`);
    await q.query(`ALTER TABLE inbound_messages DROP COLUMN recipients`);
  }
}
