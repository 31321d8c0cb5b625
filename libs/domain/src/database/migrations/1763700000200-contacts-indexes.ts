import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the contacts schema needs to stay fast at a million contacts per organization (§5):
 * - one trigram index over first, last and display name (`contact_search_text`, the fields joined
 *   by a control character no search contains, so a fragment only matches within one field; an
 *   encrypted display name contributes nothing) for the name-fragment search;
 * - one btree per sort field and direction;
 * - `contacts.channel_mask` (one bit per channel, kept by triggers on the six channel tables) so
 *   the channel filter is a bit test instead of a semi-join per row;
 * - `contact_counters` (organization, status, channel mask → contacts, in 16 slots) and
 *   `contact_tags.contact_count`, kept by statement-level triggers, so list totals and tag counts
 *   are exact without counting a million rows per request;
 * - blind-index lookups on every channel table that carries one.
 */
export const CHANNEL_TABLE_BITS: [table: string, bit: number][] = [
  ['contact_emails', 1],
  ['contact_sms', 2],
  ['contact_whatsapp', 4],
  ['contact_telegram', 8],
  ['contact_imessage', 16],
  ['contact_push', 32],
];

export class ContactsIndexes1763700000200 implements MigrationInterface {
  name = 'ContactsIndexes1763700000200';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE EXTENSION IF NOT EXISTS pg_trgm`);
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
    // Nullable sort fields sort NULLs last in both directions, hence one index per direction.
    for (const col of ['first_name', 'last_name', 'last_activity_at']) {
      await q.query(
        `CREATE INDEX contacts_org_${col}_asc_idx ON contacts (organization_id, ${col} ASC NULLS LAST, id ASC)`,
      );
      await q.query(
        `CREATE INDEX contacts_org_${col}_desc_idx ON contacts (organization_id, ${col} DESC NULLS LAST, id DESC)`,
      );
    }
    await q.query(
      `CREATE INDEX contacts_org_updated_idx ON contacts (organization_id, updated_at DESC, id DESC)`,
    );

    await q.query(
      `CREATE INDEX contact_whatsapp_org_hash_idx ON contact_whatsapp (organization_id, phone_hash)`,
    );
    await q.query(
      `CREATE INDEX contact_telegram_org_hash_idx ON contact_telegram (organization_id, phone_hash)`,
    );
    await q.query(
      `CREATE INDEX contact_imessage_org_hash_idx ON contact_imessage (organization_id, apple_id_hash)`,
    );
    await q.query(
      `CREATE INDEX contact_push_org_hash_idx ON contact_push (organization_id, device_token_hash)`,
    );
    await q.query(
      `CREATE INDEX contact_list_memberships_list_created_idx ON contact_list_memberships (contact_list_id, created_at DESC, id DESC)`,
    );

    // --- channel presence bits -------------------------------------------------------------
    await q.query(`ALTER TABLE contacts ADD COLUMN channel_mask smallint NOT NULL DEFAULT 0`);
    for (const [table, bit] of CHANNEL_TABLE_BITS) {
      await q.query(
        `UPDATE contacts c SET channel_mask = c.channel_mask | ${bit}
          WHERE EXISTS (SELECT 1 FROM ${table} t WHERE t.contact_id = c.id)`,
      );
      // The contact row is locked before its bit is read or changed, and each statement of a
      // PL/pgSQL function takes a fresh snapshot: a record added while the last one is deleted
      // leaves the bit set whichever transaction commits first.
      await q.query(`
        CREATE FUNCTION ${table}_mask_on_insert() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          PERFORM 1 FROM contacts WHERE id IN (SELECT contact_id FROM new_rows)
            ORDER BY id FOR NO KEY UPDATE;
          UPDATE contacts c SET channel_mask = c.channel_mask | ${bit}
           WHERE c.id IN (SELECT contact_id FROM new_rows) AND c.channel_mask & ${bit} = 0;
          RETURN NULL;
        END $$`);
      await q.query(`
        CREATE FUNCTION ${table}_mask_on_delete() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          PERFORM 1 FROM contacts WHERE id IN (SELECT contact_id FROM old_rows)
            ORDER BY id FOR NO KEY UPDATE;
          UPDATE contacts c SET channel_mask = c.channel_mask & ~(${bit})::smallint
           WHERE c.id IN (SELECT contact_id FROM old_rows) AND c.channel_mask & ${bit} <> 0
             AND NOT EXISTS (SELECT 1 FROM ${table} t WHERE t.contact_id = c.id);
          RETURN NULL;
        END $$`);
      await q.query(`
        CREATE TRIGGER ${table}_mask_ins AFTER INSERT ON ${table}
          REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ${table}_mask_on_insert()`);
      await q.query(`
        CREATE TRIGGER ${table}_mask_del AFTER DELETE ON ${table}
          REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION ${table}_mask_on_delete()`);
    }

    // --- contact totals per (organization, status, channel mask) -----------------------------
    // Spread over 16 slots (by backend) so concurrent writers of one organization rarely wait on
    // the same counter row; readers sum the slots.
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
      INSERT INTO contact_counters (organization_id, status, channel_mask, slot, total)
      SELECT organization_id, coalesce(status, ''), channel_mask, 0, count(*)
        FROM contacts GROUP BY 1, 2, 3`);
    await q.query(`
      CREATE FUNCTION contact_counters_add(org uuid, st text, mask smallint, n bigint)
      RETURNS void LANGUAGE sql AS $$
        INSERT INTO contact_counters AS cc (organization_id, status, channel_mask, slot, total)
        VALUES (org, st, mask, pg_backend_pid() % 16, n)
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
    await q.query(`
      CREATE FUNCTION contact_counters_on_update() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE r record;
      BEGIN
        FOR r IN
          SELECT organization_id, status, channel_mask, sum(n) AS n FROM (
            SELECT o.organization_id, coalesce(o.status, '') AS status, o.channel_mask, -1 AS n
              FROM old_rows o JOIN new_rows nw ON nw.id = o.id
             WHERE o.status IS DISTINCT FROM nw.status OR o.channel_mask <> nw.channel_mask
            UNION ALL
            SELECT nw.organization_id, coalesce(nw.status, ''), nw.channel_mask, 1
              FROM old_rows o JOIN new_rows nw ON nw.id = o.id
             WHERE o.status IS DISTINCT FROM nw.status OR o.channel_mask <> nw.channel_mask
          ) d GROUP BY 1, 2, 3 HAVING sum(n) <> 0 ORDER BY 1, 2, 3
        LOOP
          PERFORM contact_counters_add(r.organization_id, r.status, r.channel_mask, r.n);
        END LOOP;
        RETURN NULL;
      END $$`);
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

    // --- tag contact counts -------------------------------------------------------------------
    await q.query(`ALTER TABLE contact_tags ADD COLUMN contact_count int NOT NULL DEFAULT 0`);
    await q.query(`
      UPDATE contact_tags t SET contact_count = s.n
        FROM (SELECT tag_id, count(*) AS n FROM contact_tag_assignments GROUP BY 1) s
       WHERE s.tag_id = t.id`);
    await q.query(`
      CREATE FUNCTION contact_tag_count_on_insert() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE r record;
      BEGIN
        FOR r IN SELECT tag_id, count(*) AS n FROM new_rows GROUP BY 1 ORDER BY 1 LOOP
          UPDATE contact_tags SET contact_count = contact_count + r.n WHERE id = r.tag_id;
        END LOOP;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE FUNCTION contact_tag_count_on_delete() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE r record;
      BEGIN
        FOR r IN SELECT tag_id, count(*) AS n FROM old_rows GROUP BY 1 ORDER BY 1 LOOP
          UPDATE contact_tags SET contact_count = contact_count - r.n WHERE id = r.tag_id;
        END LOOP;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER contact_tag_assignments_count_ins AFTER INSERT ON contact_tag_assignments
        REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION contact_tag_count_on_insert()`);
    await q.query(`
      CREATE TRIGGER contact_tag_assignments_count_del AFTER DELETE ON contact_tag_assignments
        REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION contact_tag_count_on_delete()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      `DROP TRIGGER IF EXISTS contact_tag_assignments_count_ins ON contact_tag_assignments`,
    );
    await q.query(
      `DROP TRIGGER IF EXISTS contact_tag_assignments_count_del ON contact_tag_assignments`,
    );
    await q.query(`DROP FUNCTION IF EXISTS contact_tag_count_on_insert()`);
    await q.query(`DROP FUNCTION IF EXISTS contact_tag_count_on_delete()`);
    await q.query(`ALTER TABLE contact_tags DROP COLUMN IF EXISTS contact_count`);
    for (const t of ['ins', 'del', 'upd'])
      await q.query(`DROP TRIGGER IF EXISTS contacts_counters_${t} ON contacts`);
    for (const f of ['insert', 'delete', 'update'])
      await q.query(`DROP FUNCTION IF EXISTS contact_counters_on_${f}()`);
    await q.query(`DROP FUNCTION IF EXISTS contact_counters_add(uuid, text, smallint, bigint)`);
    await q.query(`DROP TABLE IF EXISTS contact_counters`);
    for (const [table] of CHANNEL_TABLE_BITS) {
      await q.query(`DROP TRIGGER IF EXISTS ${table}_mask_ins ON ${table}`);
      await q.query(`DROP TRIGGER IF EXISTS ${table}_mask_del ON ${table}`);
      await q.query(`DROP FUNCTION IF EXISTS ${table}_mask_on_insert()`);
      await q.query(`DROP FUNCTION IF EXISTS ${table}_mask_on_delete()`);
    }
    await q.query(`ALTER TABLE contacts DROP COLUMN IF EXISTS channel_mask`);
    for (const idx of [
      'contact_list_memberships_list_created_idx',
      'contact_push_org_hash_idx',
      'contact_imessage_org_hash_idx',
      'contact_telegram_org_hash_idx',
      'contact_whatsapp_org_hash_idx',
      'contacts_org_updated_idx',
      ...['first_name', 'last_name', 'last_activity_at'].flatMap((c) => [
        `contacts_org_${c}_asc_idx`,
        `contacts_org_${c}_desc_idx`,
      ]),
      'contacts_search_trgm_idx',
    ]) {
      await q.query(`DROP INDEX IF EXISTS ${idx}`);
    }
    await q.query(`DROP FUNCTION IF EXISTS contact_search_text(text, text, text)`);
  }
}
