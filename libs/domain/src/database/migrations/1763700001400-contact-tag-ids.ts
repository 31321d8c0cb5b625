import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Dynamic segments at a million contacts (bench/segments.ts): a tag condition was a semi-join of
 * every candidate contact with contact_tag_assignments, which cost what hashing ~200,000
 * assignments costs on every count. `contacts.tag_ids` (the contact's tag ids, sorted) is kept by
 * statement-level triggers on contact_tag_assignments, in the same transaction as the assignment
 * change, so a tag condition becomes a test on the contact's own row (`tag_ids && $tags`).
 * The status / createdAt index carries tag_ids (INCLUDE), so the commonest dynamic segment
 * (tags, status, a createdAt window) counts with an index-only scan and no join.
 *
 * Concurrency: like the channel mask triggers, the contact rows are locked (FOR NO KEY UPDATE, in
 * id order, which does not conflict with the FK's key-share locks) before tag_ids is recomputed
 * from the table, and each statement of a PL/pgSQL function takes a fresh snapshot, so two
 * transactions changing one contact's tags never leave a stale array whichever commits first.
 *
 * On a large existing installation the backfill UPDATE rewrites every tagged contact once; the
 * index is built IF NOT EXISTS, so it can be built CONCURRENTLY by hand beforehand.
 */
export class ContactTagIds1763700001400 implements MigrationInterface {
  name = 'ContactTagIds1763700001400';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE contacts ADD COLUMN tag_ids uuid[] NOT NULL DEFAULT '{}'`);
    await q.query(`
      UPDATE contacts c SET tag_ids = s.ids
        FROM (SELECT contact_id, array_agg(tag_id ORDER BY tag_id) AS ids
                FROM contact_tag_assignments GROUP BY 1) s
       WHERE c.id = s.contact_id`);
    for (const [op, rows] of [
      ['insert', 'new_rows'],
      ['delete', 'old_rows'],
    ] as const) {
      await q.query(`
        CREATE FUNCTION contact_tag_ids_on_${op}() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          PERFORM 1 FROM contacts WHERE id IN (SELECT contact_id FROM ${rows})
            ORDER BY id FOR NO KEY UPDATE;
          UPDATE contacts c
             SET tag_ids = coalesce((SELECT array_agg(a.tag_id ORDER BY a.tag_id)
                                       FROM contact_tag_assignments a
                                      WHERE a.contact_id = c.id), '{}')
           WHERE c.id IN (SELECT contact_id FROM ${rows});
          RETURN NULL;
        END $$`);
    }
    await q.query(`
      CREATE TRIGGER contact_tag_assignments_tag_ids_ins AFTER INSERT ON contact_tag_assignments
        REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION contact_tag_ids_on_insert()`);
    await q.query(`
      CREATE TRIGGER contact_tag_assignments_tag_ids_del AFTER DELETE ON contact_tag_assignments
        REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION contact_tag_ids_on_delete()`);
    // An assignment's key never changes in the code; should one be updated by hand, both the old
    // and the new contact are recomputed.
    await q.query(`
      CREATE FUNCTION contact_tag_ids_on_update() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM 1 FROM contacts
          WHERE id IN (SELECT contact_id FROM old_rows UNION SELECT contact_id FROM new_rows)
          ORDER BY id FOR NO KEY UPDATE;
        UPDATE contacts c
           SET tag_ids = coalesce((SELECT array_agg(a.tag_id ORDER BY a.tag_id)
                                     FROM contact_tag_assignments a
                                    WHERE a.contact_id = c.id), '{}')
         WHERE c.id IN (SELECT contact_id FROM old_rows UNION SELECT contact_id FROM new_rows);
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER contact_tag_assignments_tag_ids_upd AFTER UPDATE ON contact_tag_assignments
        REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
        FOR EACH STATEMENT EXECUTE FUNCTION contact_tag_ids_on_update()`);
    await q.query(
      `CREATE INDEX IF NOT EXISTS contacts_org_status_created_tags_idx
         ON contacts (organization_id, status, created_at DESC, id DESC) INCLUDE (tag_ids)`,
    );
    // Same key columns: the new index answers everything the old one did.
    await q.query(`DROP INDEX IF EXISTS contacts_org_status_created_idx`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX IF NOT EXISTS contacts_org_status_created_idx
         ON contacts (organization_id, status, created_at DESC, id DESC)`,
    );
    await q.query(`DROP INDEX IF EXISTS contacts_org_status_created_tags_idx`);
    for (const op of ['ins', 'del', 'upd'])
      await q.query(
        `DROP TRIGGER IF EXISTS contact_tag_assignments_tag_ids_${op} ON contact_tag_assignments`,
      );
    for (const op of ['insert', 'delete', 'update'])
      await q.query(`DROP FUNCTION IF EXISTS contact_tag_ids_on_${op}()`);
    await q.query(`ALTER TABLE contacts DROP COLUMN IF EXISTS tag_ids`);
  }
}
