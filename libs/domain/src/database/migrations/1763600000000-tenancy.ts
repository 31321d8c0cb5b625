// Tenancy baseline: organizations (and their change notification), users, memberships, API keys,
// access tokens, the addresses users signed in from, and the system table of periodic task runs.
import { MigrationInterface, QueryRunner } from 'typeorm';

export class Tenancy1763600000000 implements MigrationInterface {
  name = 'Tenancy1763600000000';

  async up(q: QueryRunner): Promise<void> {
    // gen_random_uuid() is core PostgreSQL from 13 on; the extension keeps older servers working.
    await q.query(`CREATE EXTENSION IF NOT EXISTS pgcrypto`);

    // --- organizations ---------------------------------------------------------------------------
    await q.query(`
      CREATE TABLE organizations (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        name text NOT NULL,
        plan text NOT NULL DEFAULT 'free' CHECK (plan IN ('free','pro','enterprise')),
        subscription_status text NOT NULL DEFAULT 'active'
          CHECK (subscription_status IN ('active','trialing','past_due','canceled')),
        message_retention_days int NOT NULL DEFAULT 30 CHECK (message_retention_days > 0),
        limit_per_second int CHECK (limit_per_second >= 0),
        limit_per_minute int CHECK (limit_per_minute >= 0),
        limit_per_hour int CHECK (limit_per_hour >= 0),
        limit_per_day int CHECK (limit_per_day >= 0),
        limit_per_month int CHECK (limit_per_month >= 0),
        max_sending_domains int CHECK (max_sending_domains >= 0),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    // A process that caches organizations (the SMTP relay's OrganizationCache) learns of every
    // change when it commits: NOTIFY is transactional, so a rolled-back change announces nothing,
    // and a notification arrives only once the new row is visible to other sessions.
    await q.query(`
      CREATE FUNCTION organization_changed_notify() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('organization_changed', OLD.id::text);
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER organization_changed_notify AFTER UPDATE OR DELETE ON organizations
        FOR EACH ROW EXECUTE FUNCTION organization_changed_notify()`);

    // --- API keys --------------------------------------------------------------------------------
    await q.query(`
      CREATE TABLE api_keys (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        name text NOT NULL,
        key_hash text COLLATE "C" NOT NULL UNIQUE,
        key_prefix text NOT NULL,
        scopes text[] NOT NULL,
        rate_limit_per_minute int NOT NULL DEFAULT 300 CHECK (rate_limit_per_minute > 0),
        rate_limit_per_day int CHECK (rate_limit_per_day > 0),
        expires_at timestamptz,
        revoked_at timestamptz,
        last_used_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX api_keys_org_idx ON api_keys (organization_id, created_at DESC)`);

    // --- users, memberships, access tokens -------------------------------------------------------
    await q.query(`
      CREATE TABLE users (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        email text NOT NULL,
        password_hash text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX users_email_uq ON users (lower(email))`);
    await q.query(`
      CREATE TABLE memberships (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        role text NOT NULL CHECK (role IN ('owner','admin','member')),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (user_id, organization_id)
      )`);
    await q.query(`CREATE INDEX memberships_org_idx ON memberships (organization_id)`);
    await q.query(`
      CREATE TABLE access_tokens (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        token_hash text COLLATE "C" NOT NULL UNIQUE,
        expires_at timestamptz NOT NULL,
        revoked_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    // The client addresses each user signed in from, as an HMAC under a key derived from the
    // encryption key: a stranger's failures cannot lock out a user at an address that signed in
    // before (§16), and the table holds no address.
    await q.query(`
      CREATE TABLE login_ips (
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        ip_hash bytea NOT NULL,
        last_success_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (user_id, ip_hash)
      )`);

    // --- periodic task runs ----------------------------------------------------------------------
    // A system table, without an organization: one row per cluster-wide periodic task, claimed
    // by the replica that starts the period's run (PeriodicTask).
    await q.query(`
      CREATE TABLE periodic_runs (
        name text PRIMARY KEY,
        last_started_at timestamptz NOT NULL,
        ran_by text NOT NULL
      )`);
  }

  // The extension stays: it may have been there before, and other schemas may use it.
  async down(q: QueryRunner): Promise<void> {
    for (const t of [
      'periodic_runs',
      'login_ips',
      'access_tokens',
      'memberships',
      'users',
      'api_keys',
      'organizations',
    ])
      await q.query(`DROP TABLE ${t}`);
    await q.query(`DROP FUNCTION organization_changed_notify()`);
  }
}
