// Contacts baseline (§5): contacts, their channel records, tags, lists and list memberships, and
// the triggers that keep their derived columns and counters exact.
import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Encrypted values are stored as `v1:<keyId>:<payload>`; email addresses, phone numbers, Apple ids
 * and device tokens also carry a blind index (`*_hash`) for lookup and per-organization uniqueness.
 * A blind index is hex, compared byte by byte (`COLLATE "C"`), not by the server's language rules.
 *
 * Derived data, kept by statement-level triggers in the transaction of the change so that lists,
 * filters and totals stay exact at a million contacts per organization:
 * - `contacts.channel_mask`: one bit per channel table holding a record of the contact, so the
 *   channel filter is a bit test instead of a semi-join per row;
 * - `contact_counters`: contacts per (organization, status, channel mask), spread over 16 slots
 *   so concurrent writers of one organization rarely wait on the same row; readers sum the slots.
 *   A transaction's slot is its backend's, or the one it sets in `contacts.counter_slot` (an
 *   import's consecutive batches, which run side by side, take different ones). An organization
 *   being deleted (its counters go by cascade, maybe before its contacts) gets none;
 * - `contact_tag_counters`: contacts per tag, spread over 16 slots like `contact_counters`, so the
 *   two batches of an import in flight do not wait on one row per tag.
 *
 * A channel record and a list membership belong to their contact: `organization_id` repeats the
 * contact's (every statement filters by it) and has no foreign key of its own. The contact's key
 * already holds the row to an organization that exists, and deleting the organization removes
 * them through the contact; a second key would cost each inserted row one more check, for
 * nothing it could catch.
 *
 * A contact's tags are `contacts.tag_ids`, its tag ids sorted: the one record of them, so a
 * segment's tag condition is a test on the contact's own row (`tag_ids && $tags`). It is written
 * by the contact's insert and by the statements that tag and untag (ContactTagsRepository). An
 * array holds no foreign key: a transaction that uses a tag locks it `FOR KEY SHARE` first (the
 * tags service's `ensure`), and deleting a tag removes its id from every contact in the same
 * transaction.
 *
 * How the triggers that write contacts stay cheap and correct:
 * - The contact rows are locked (FOR NO KEY UPDATE, in id order, which does not conflict with the
 *   foreign keys' key-share locks) before a derived value is read or changed, and each statement
 *   of a PL/pgSQL function takes a fresh snapshot: two transactions changing one contact's
 *   records never leave a stale value, whichever commits first. The channel-mask insert trigger
 *   does not lock a contact whose current version this transaction wrote (`xmin` is the current
 *   transaction): it holds that lock already, and no other transaction sees an inserted contact.
 *   Inside a subtransaction the ids differ and the row is locked.
 * - Statements that read contacts run through EXECUTE, so they are planned at each call: PL/pgSQL
 *   keeps a parameterless statement's first plan for the session, and one planned while the
 *   organization had few contacts would scan the whole table for the rest of the session.
 * - The functions run with `jit = off`: transition tables have no statistics, and on a few
 *   thousand rows the estimates cross the JIT thresholds, whose compilation costs more than the
 *   statement.
 * - `contact_counters_on_update` sums -1 per old row and +1 per new row instead of joining the
 *   two transition tables (a nested loop, for lack of statistics).
 * - A writer that inserts contacts with `channel_mask` already right (an import) leaves the
 *   channel-mask insert triggers nothing to update.
 */

/** Each channel table and its bit in `contacts.channel_mask`. */
const CHANNEL_TABLE_BITS: [table: string, bit: number][] = [
  ['contact_emails', 1],
  ['contact_sms', 2],
  ['contact_whatsapp', 4],
  ['contact_telegram', 8],
  ['contact_imessage', 16],
  ['contact_push', 32],
];

const OWN_ROW = `xmin = pg_current_xact_id()::xid`;

/** The transaction's counter slot (0–15): `contacts.counter_slot` when set, else by backend. */
const COUNTER_SLOT = `
  CREATE FUNCTION contact_counter_slot() RETURNS smallint LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT (coalesce(nullif(current_setting('contacts.counter_slot', true), '')::int,
                     pg_backend_pid()) % 16)::smallint
  $$`;

/** A statement planned at each call. */
const dynamic = (sql: string) => `EXECUTE $q$ ${sql} $q$`;
function maskFunctions(table: string, bit: number): string[] {
  return [
    `
    CREATE FUNCTION ${table}_mask_on_insert() RETURNS trigger LANGUAGE plpgsql
    SET jit = off AS $$
    BEGIN
      ${dynamic(`SELECT 1 FROM contacts WHERE id IN (SELECT contact_id FROM new_rows) AND NOT ${OWN_ROW} ORDER BY id FOR NO KEY UPDATE`)};
      ${dynamic(`UPDATE contacts c SET channel_mask = c.channel_mask | ${bit} WHERE c.id IN (SELECT contact_id FROM new_rows) AND c.channel_mask & ${bit} = 0`)};
      RETURN NULL;
    END $$`,
    `
    CREATE FUNCTION ${table}_mask_on_delete() RETURNS trigger LANGUAGE plpgsql
    SET jit = off AS $$
    BEGIN
      ${dynamic(`SELECT 1 FROM contacts WHERE id IN (SELECT contact_id FROM old_rows) ORDER BY id FOR NO KEY UPDATE`)};
      ${dynamic(`UPDATE contacts c SET channel_mask = c.channel_mask & ~(${bit})::smallint WHERE c.id IN (SELECT contact_id FROM old_rows) AND c.channel_mask & ${bit} <> 0 AND NOT EXISTS (SELECT 1 FROM ${table} t WHERE t.contact_id = c.id)`)};
      RETURN NULL;
    END $$`,
  ];
}

/** The (tag, ±1) pairs a statement on contacts changed, per operation. */
const TAG_DELTAS: [op: string, transition: string, deltas: string][] = [
  ['insert', 'NEW TABLE AS new_rows', 'SELECT x, 1 FROM new_rows, unnest(tag_ids) x'],
  ['delete', 'OLD TABLE AS old_rows', 'SELECT x, -1 FROM old_rows, unnest(tag_ids) x'],
  [
    'update',
    'OLD TABLE AS old_rows NEW TABLE AS new_rows',
    `SELECT x, -1 FROM old_rows, unnest(tag_ids) x
     UNION ALL SELECT x, 1 FROM new_rows, unnest(tag_ids) x`,
  ],
];

/**
 * Adds what one statement on contacts changed to the tag counters, in tag order; a tag deleted
 * in this transaction (its counters with it) gets nothing.
 */
function tagCountersFunction(op: string, deltas: string): string {
  return `
    CREATE FUNCTION contact_tag_counters_on_${op}() RETURNS trigger LANGUAGE plpgsql
    SET jit = off AS $$
    BEGIN
      INSERT INTO contact_tag_counters AS tc (tag_id, slot, total)
      SELECT d.tag_id, contact_counter_slot(), d.n
        FROM (SELECT x AS tag_id, sum(n) AS n FROM (${deltas}) s(x, n)
               GROUP BY x HAVING sum(n) <> 0) d
       WHERE EXISTS (SELECT 1 FROM contact_tags t WHERE t.id = d.tag_id)
       ORDER BY d.tag_id
      ON CONFLICT (tag_id, slot) DO UPDATE SET total = tc.total + EXCLUDED.total;
      RETURN NULL;
    END $$`;
}

const COUNTERS_ON_UPDATE = `
    CREATE FUNCTION contact_counters_on_update() RETURNS trigger LANGUAGE plpgsql
    SET jit = off AS $$
    DECLARE r record;
    BEGIN
      FOR r IN SELECT organization_id, status, channel_mask, sum(n) AS n FROM (
         SELECT organization_id, coalesce(status, '') AS status, channel_mask, -1 AS n FROM old_rows
         UNION ALL
         SELECT organization_id, coalesce(status, ''), channel_mask, 1 FROM new_rows
       ) d GROUP BY 1, 2, 3 HAVING sum(n) <> 0 ORDER BY 1, 2, 3 LOOP
        PERFORM contact_counters_add(r.organization_id, r.status, r.channel_mask, r.n);
      END LOOP;
      RETURN NULL;
    END $$`;

/**
 * A UUID of version 7 (RFC 9562): the first 48 bits are the Unix time in milliseconds, the other
 * 74 random. The ids of contacts and their records: a bulk insert adds them at the right edge of
 * every index they lead (the keys, `contact_id`), where random ids would touch a page anywhere in
 * each index per row; 74 random bits keep them unguessable.
 */
const UUID_V7 = `
  CREATE FUNCTION uuid_v7() RETURNS uuid LANGUAGE sql VOLATILE PARALLEL SAFE AS $$
    SELECT encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid())
             PLACING substring(int8send((extract(epoch FROM clock_timestamp()) * 1000)::bigint) FROM 3)
             FROM 1 FOR 6), 52, 1), 53, 1), 'hex')::uuid
  $$`;

export class Contacts1763600000100 implements MigrationInterface {
  name = 'Contacts1763600000100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE EXTENSION IF NOT EXISTS pg_trgm`);
    await q.query(UUID_V7);
    await q.query(COUNTER_SLOT);

    // --- contact lists ---------------------------------------------------------------------------
    await q.query(`
      CREATE TABLE contact_lists (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        cuid text NOT NULL UNIQUE,
        name text NOT NULL,
        description text,
        status text NOT NULL DEFAULT 'active' CHECK (status IN ('active','inactive','archived')),
        preferred_channels text[] NOT NULL DEFAULT '{}',
        is_default boolean NOT NULL DEFAULT false,
        subscriber_count int NOT NULL DEFAULT 0 CHECK (subscriber_count >= 0),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(
      `CREATE INDEX contact_lists_org_idx ON contact_lists (organization_id, created_at DESC)`,
    );
    await q.query(
      `CREATE UNIQUE INDEX contact_lists_one_default ON contact_lists (organization_id) WHERE is_default`,
    );

    // --- contacts --------------------------------------------------------------------------------
    await q.query(`
      CREATE TABLE contacts (
        id uuid PRIMARY KEY DEFAULT uuid_v7(),
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
        updated_at timestamptz NOT NULL DEFAULT now(),
        channel_mask smallint NOT NULL DEFAULT 0,
        tag_ids uuid[] NOT NULL DEFAULT '{}'
      )`);
    await q.query(
      `CREATE INDEX contacts_org_created_idx ON contacts (organization_id, created_at DESC, id DESC)`,
    );
    await q.query(
      `CREATE INDEX contacts_org_updated_idx ON contacts (organization_id, updated_at DESC, id DESC)`,
    );
    // Nullable sort fields sort NULLs last in both directions from this one index: descending,
    // the values are read backward and the NULLs after them (ContactPageRepository.listQueries).
    for (const col of ['first_name', 'last_name', 'last_activity_at']) {
      await q.query(
        `CREATE INDEX contacts_org_${col}_idx ON contacts (organization_id, ${col}, id)`,
      );
    }
    // Name-fragment search: one trigram index over first, last and display name, joined by a
    // control character no search contains (a fragment matches within one field only); an
    // encrypted display name contributes nothing.
    await q.query(`
      CREATE FUNCTION contact_search_text(first_name text, last_name text, display_name text)
      RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
        SELECT coalesce(first_name, '') || chr(1) || coalesce(last_name, '') || chr(1) ||
               CASE WHEN display_name ~ '^v1:[0-9a-f]{8}:' THEN '' ELSE coalesce(display_name, '') END
      $$`);
    await q.query(
      `CREATE INDEX contacts_search_trgm_idx ON contacts
         USING gin (contact_search_text(first_name, last_name, display_name) gin_trgm_ops)`,
    );

    // --- channel records -------------------------------------------------------------------------
    const channel = (table: string, cols: string, unique?: string) => `
      CREATE TABLE ${table} (
        id uuid PRIMARY KEY DEFAULT uuid_v7(),
        organization_id uuid NOT NULL,
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
         email_hash text COLLATE "C" NOT NULL,
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
         phone_hash text COLLATE "C" NOT NULL,
         country_code text NOT NULL,
         status text NOT NULL DEFAULT 'unverified' CHECK (status IN ('verified','unverified','invalid','opted_out')),
         verified_at timestamptz,
         opted_out_at timestamptz,
         status_before_opt_out text`,
      ),
    );
    await q.query(
      channel(
        'contact_whatsapp',
        `phone_number text NOT NULL,
         phone_hash text COLLATE "C" NOT NULL,
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
         phone_hash text COLLATE "C" NOT NULL,
         country_code text NOT NULL,
         username text,
         status text NOT NULL DEFAULT 'active' CHECK (status IN ('active','inactive','blocked')),
         last_active_at timestamptz,
         chat_id text,
         chat_id_hash text COLLATE "C",
         CHECK ((chat_id IS NULL) = (chat_id_hash IS NULL))`,
      ),
    );
    await q.query(
      channel(
        'contact_imessage',
        `apple_id text NOT NULL,
         apple_id_hash text COLLATE "C" NOT NULL,
         phone_number text,
         status text NOT NULL DEFAULT 'unverified' CHECK (status IN ('verified','unverified','invalid')),
         verified_at timestamptz`,
      ),
    );
    await q.query(
      channel(
        'contact_push',
        `device_token text NOT NULL,
         device_token_hash text COLLATE "C" NOT NULL,
         platform text NOT NULL CHECK (platform IN ('ios','android','web')),
         status text NOT NULL DEFAULT 'active' CHECK (status IN ('active','inactive','expired')),
         app_version text,
         device_info jsonb,
         last_used_at timestamptz,
         expires_at timestamptz`,
      ),
    );
    for (const [table] of CHANNEL_TABLE_BITS)
      await q.query(`CREATE INDEX ${table}_contact_idx ON ${table} (contact_id)`);
    // Blind-index lookups (contact_emails has its unique constraint).
    for (const [table, hash] of [
      ['contact_sms', 'phone_hash'],
      ['contact_whatsapp', 'phone_hash'],
      ['contact_telegram', 'phone_hash'],
      ['contact_imessage', 'apple_id_hash'],
      ['contact_push', 'device_token_hash'],
    ])
      await q.query(`CREATE INDEX ${table}_org_hash_idx ON ${table} (organization_id, ${hash})`);
    // The chat a Telegram record was linked to by its bot's deep link: the address sent to.
    await q.query(
      `CREATE INDEX contact_telegram_org_chat_idx ON contact_telegram (organization_id, chat_id_hash)
        WHERE chat_id_hash IS NOT NULL`,
    );

    // --- tags ------------------------------------------------------------------------------------
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
      CREATE TABLE contact_tag_counters (
        tag_id uuid NOT NULL REFERENCES contact_tags(id) ON DELETE CASCADE,
        slot smallint NOT NULL,
        total bigint NOT NULL,
        PRIMARY KEY (tag_id, slot)
      )`);

    // --- list tags and memberships ---------------------------------------------------------------
    await q.query(`
      CREATE TABLE contact_list_tags (
        contact_list_id uuid NOT NULL REFERENCES contact_lists(id) ON DELETE CASCADE,
        tag_id uuid NOT NULL REFERENCES contact_tags(id) ON DELETE CASCADE,
        PRIMARY KEY (contact_list_id, tag_id)
      )`);
    await q.query(`
      CREATE TABLE contact_list_memberships (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL,
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
    await q.query(
      `CREATE INDEX contact_list_memberships_list_created_idx ON contact_list_memberships (contact_list_id, created_at DESC, id DESC)`,
    );

    // --- channel presence bits -------------------------------------------------------------------
    for (const [table, bit] of CHANNEL_TABLE_BITS) {
      for (const fn of maskFunctions(table, bit)) await q.query(fn);
      await q.query(`
        CREATE TRIGGER ${table}_mask_ins AFTER INSERT ON ${table}
          REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ${table}_mask_on_insert()`);
      await q.query(`
        CREATE TRIGGER ${table}_mask_del AFTER DELETE ON ${table}
          REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION ${table}_mask_on_delete()`);
    }

    // --- contact totals per (organization, status, channel mask) ---------------------------------
    await q.query(`
      CREATE TABLE contact_counters (
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        status text NOT NULL,
        channel_mask smallint NOT NULL,
        slot smallint NOT NULL,
        total bigint NOT NULL,
        PRIMARY KEY (organization_id, status, channel_mask, slot)
      )`);
    await q.query(`
      CREATE FUNCTION contact_counters_add(org uuid, st text, mask smallint, n bigint)
      RETURNS void LANGUAGE sql AS $$
        INSERT INTO contact_counters AS cc (organization_id, status, channel_mask, slot, total)
        SELECT org, st, mask, contact_counter_slot(), n
         WHERE EXISTS (SELECT 1 FROM organizations o WHERE o.id = org)
        ON CONFLICT (organization_id, status, channel_mask, slot)
        DO UPDATE SET total = cc.total + EXCLUDED.total
      $$`);
    // Rows are touched in key order so two statements never wait on each other in a cycle.
    await q.query(`
      CREATE FUNCTION contact_counters_on_insert() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE r record;
      BEGIN
        FOR r IN SELECT organization_id, coalesce(status, '') AS status, channel_mask, count(*) AS n
                   FROM new_rows GROUP BY 1, 2, 3 ORDER BY 1, 2, 3 LOOP
          PERFORM contact_counters_add(r.organization_id, r.status, r.channel_mask, r.n);
        END LOOP;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE FUNCTION contact_counters_on_delete() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE r record;
      BEGIN
        FOR r IN SELECT organization_id, coalesce(status, '') AS status, channel_mask, count(*) AS n
                   FROM old_rows GROUP BY 1, 2, 3 ORDER BY 1, 2, 3 LOOP
          PERFORM contact_counters_add(r.organization_id, r.status, r.channel_mask, -r.n);
        END LOOP;
        RETURN NULL;
      END $$`);
    await q.query(COUNTERS_ON_UPDATE);
    await q.query(`
      CREATE TRIGGER contacts_counters_ins AFTER INSERT ON contacts
        REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION contact_counters_on_insert()`);
    await q.query(`
      CREATE TRIGGER contacts_counters_del AFTER DELETE ON contacts
        REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION contact_counters_on_delete()`);
    await q.query(`
      CREATE TRIGGER contacts_counters_upd AFTER UPDATE ON contacts
        REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
        FOR EACH STATEMENT EXECUTE FUNCTION contact_counters_on_update()`);

    // --- contacts per tag ------------------------------------------------------------------------
    for (const [op, transition, deltas] of TAG_DELTAS) {
      await q.query(tagCountersFunction(op, deltas));
      await q.query(`
        CREATE TRIGGER contacts_tag_counters_${op.slice(0, 3)} AFTER ${op.toUpperCase()} ON contacts
          REFERENCING ${transition} FOR EACH STATEMENT
          EXECUTE FUNCTION contact_tag_counters_on_${op}()`);
    }
  }

  // pg_trgm stays: it may have been there before, and other schemas may use it.
  async down(q: QueryRunner): Promise<void> {
    for (const t of [
      'contact_counters',
      'contact_list_memberships',
      'contact_list_tags',
      'contact_tag_counters',
      'contact_tags',
      ...CHANNEL_TABLE_BITS.map(([table]) => table).reverse(),
      'contacts',
      'contact_lists',
    ])
      await q.query(`DROP TABLE ${t}`);
    for (const [op] of TAG_DELTAS) await q.query(`DROP FUNCTION contact_tag_counters_on_${op}()`);
    for (const op of ['insert', 'delete', 'update'])
      await q.query(`DROP FUNCTION contact_counters_on_${op}()`);
    await q.query(`DROP FUNCTION contact_counters_add(uuid, text, smallint, bigint)`);
    for (const [table] of CHANNEL_TABLE_BITS) {
      await q.query(`DROP FUNCTION ${table}_mask_on_insert()`);
      await q.query(`DROP FUNCTION ${table}_mask_on_delete()`);
    }
    await q.query(`DROP FUNCTION contact_search_text(text, text, text)`);
    await q.query(`DROP FUNCTION contact_counter_slot()`);
    await q.query(`DROP FUNCTION uuid_v7()`);
  }
}
