// Channels baseline (§17): the provider accounts through which an organization's messages beyond
// email go out (Twilio, FCM, APNs, …).
import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * - credentials holds the provider's secrets as one JSON object, encrypted with the field cipher
 *   (`v1:`); settings holds only what is not secret (sender number, project id, apiBaseUrl…).
 * - One default account per organization and channel (the partial unique index): a send that
 *   names no provider goes out through it.
 * - consecutive_auth_failures counts sends in a row whose credentials the provider refused; the
 *   service turns the account `failing` at its threshold and back to `active` on the next accepted
 *   send. `disabled` is the organization's own choice and only it changes it.
 */
export class Channels1763600000800 implements MigrationInterface {
  name = 'Channels1763600000800';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE channel_providers (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        channel text NOT NULL
          CHECK (channel IN ('sms','whatsapp','telegram','push','imessage')),
        provider text NOT NULL
          CHECK (provider IN ('twilio','whatsapp-cloud','telegram-bot','fcm','apns','blooio','http')),
        name text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
        settings jsonb NOT NULL DEFAULT '{}',
        credentials text NOT NULL,
        status text NOT NULL DEFAULT 'active' CHECK (status IN ('active','failing','disabled')),
        consecutive_auth_failures int NOT NULL DEFAULT 0 CHECK (consecutive_auth_failures >= 0),
        is_default boolean NOT NULL DEFAULT false,
        max_per_second int NOT NULL CHECK (max_per_second BETWEEN 1 AND 10000),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(
      `CREATE UNIQUE INDEX channel_providers_default_uq ON channel_providers (organization_id, channel)
         WHERE is_default`,
    );
    await q.query(
      `CREATE INDEX channel_providers_org_created_idx
         ON channel_providers (organization_id, created_at DESC, id DESC)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE channel_providers`);
  }
}
