import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Contacts, their channel records, tags and list memberships (§5). Encrypted values are stored as
 * `v1:<keyId>:<payload>`; email and phone numbers also carry a blind index (`*_hash`) for lookup
 * and per-organization uniqueness.
 */
export class Contacts1763700000100 implements MigrationInterface {
  name = 'Contacts1763700000100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE contacts (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        first_name text,
        last_name text,
        display_name text,
        timezone text,
        language text,
        status text CHECK (status IN ('active','inactive','archived')),
        custom_fields jsonb,
        notes text,
        last_activity_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(
      `CREATE INDEX contacts_org_created_idx ON contacts (organization_id, created_at DESC, id DESC)`,
    );
    await q.query(`CREATE INDEX contacts_org_status_idx ON contacts (organization_id, status)`);

    const channel = (table: string, cols: string, unique?: string) => `
      CREATE TABLE ${table} (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        contact_id uuid NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
        ${cols},
        is_primary boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
        ${unique ? ', ' + unique : ''}
      )`;

    await q.query(
      channel(
        'contact_emails',
        `email text NOT NULL,
         email_hash text NOT NULL,
         status text NOT NULL DEFAULT 'unverified'
           CHECK (status IN ('verified','unverified','bounced','complained','suppressed')),
         bounce_count int NOT NULL DEFAULT 0,
         complaint_count int NOT NULL DEFAULT 0,
         verified_at timestamptz,
         last_bounced_at timestamptz,
         last_complained_at timestamptz`,
        'UNIQUE (organization_id, email_hash)',
      ),
    );
    await q.query(
      channel(
        'contact_sms',
        `phone_number text NOT NULL,
         phone_hash text NOT NULL,
         country_code text NOT NULL,
         status text NOT NULL DEFAULT 'unverified' CHECK (status IN ('verified','unverified','invalid','opted_out')),
         verified_at timestamptz,
         opted_out_at timestamptz`,
      ),
    );
    await q.query(
      `CREATE INDEX contact_sms_org_hash_idx ON contact_sms (organization_id, phone_hash)`,
    );
    await q.query(
      channel(
        'contact_whatsapp',
        `phone_number text NOT NULL,
         phone_hash text NOT NULL,
         country_code text NOT NULL,
         status text NOT NULL DEFAULT 'unverified' CHECK (status IN ('verified','unverified','blocked')),
         is_business_account boolean NOT NULL DEFAULT false,
         last_seen_at timestamptz,
         verified_at timestamptz`,
      ),
    );
    await q.query(
      channel(
        'contact_telegram',
        `phone_number text NOT NULL,
         phone_hash text NOT NULL,
         country_code text NOT NULL,
         username text,
         status text NOT NULL DEFAULT 'active' CHECK (status IN ('active','inactive','blocked')),
         last_active_at timestamptz`,
      ),
    );
    await q.query(
      channel(
        'contact_imessage',
        `apple_id text NOT NULL,
         apple_id_hash text NOT NULL,
         phone_number text,
         status text NOT NULL DEFAULT 'unverified' CHECK (status IN ('verified','unverified','invalid')),
         verified_at timestamptz`,
      ),
    );
    await q.query(
      channel(
        'contact_push',
        `device_token text NOT NULL,
         device_token_hash text NOT NULL,
         platform text NOT NULL CHECK (platform IN ('ios','android','web')),
         status text NOT NULL DEFAULT 'active' CHECK (status IN ('active','inactive','expired')),
         app_version text,
         device_info jsonb,
         last_used_at timestamptz,
         expires_at timestamptz`,
      ),
    );
    for (const t of [
      'contact_emails',
      'contact_sms',
      'contact_whatsapp',
      'contact_telegram',
      'contact_imessage',
      'contact_push',
    ]) {
      await q.query(`CREATE INDEX ${t}_contact_idx ON ${t} (contact_id)`);
    }

    await q.query(`
      CREATE TABLE contact_tags (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        name text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(
      `CREATE UNIQUE INDEX contact_tags_org_name_uq ON contact_tags (organization_id, lower(name))`,
    );
    await q.query(`
      CREATE TABLE contact_tag_assignments (
        contact_id uuid NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
        tag_id uuid NOT NULL REFERENCES contact_tags(id) ON DELETE CASCADE,
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (contact_id, tag_id)
      )`);
    await q.query(
      `CREATE INDEX contact_tag_assignments_tag_idx ON contact_tag_assignments (tag_id, contact_id)`,
    );

    await q.query(`
      CREATE TABLE contact_list_tags (
        contact_list_id uuid NOT NULL REFERENCES contact_lists(id) ON DELETE CASCADE,
        tag_id uuid NOT NULL REFERENCES contact_tags(id) ON DELETE CASCADE,
        PRIMARY KEY (contact_list_id, tag_id)
      )`);
    await q.query(`
      CREATE TABLE contact_list_memberships (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        contact_id uuid NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
        contact_list_id uuid NOT NULL REFERENCES contact_lists(id) ON DELETE CASCADE,
        status text NOT NULL DEFAULT 'subscribed' CHECK (status IN ('subscribed','unsubscribed')),
        subscribed_at timestamptz NOT NULL DEFAULT now(),
        unsubscribed_at timestamptz,
        unsubscribe_reason text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (contact_list_id, contact_id)
      )`);
    await q.query(
      `CREATE INDEX contact_list_memberships_contact_idx ON contact_list_memberships (contact_id)`,
    );
    await q.query(
      `CREATE INDEX contact_list_memberships_list_status_idx ON contact_list_memberships (contact_list_id, status, created_at DESC)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of [
      'contact_list_memberships',
      'contact_list_tags',
      'contact_tag_assignments',
      'contact_tags',
      'contact_push',
      'contact_imessage',
      'contact_telegram',
      'contact_whatsapp',
      'contact_sms',
      'contact_emails',
      'contacts',
    ]) {
      await q.query(`DROP TABLE IF EXISTS ${t}`);
    }
  }
}
