// Segments baseline (§6): segments, the members of static ones with their count, and the contacts
// index dynamic segments are counted with.
import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A static segment's members are materialised in contact_segment_members and counted in
 * contact_segments.contact_count by statement-level triggers, so the count stays exact in the
 * same transaction however a membership row goes away (a member removed, a contact deleted by
 * cascade). A dynamic segment stores its rules and no count.
 */
export class Segments1763600000200 implements MigrationInterface {
  name = 'Segments1763600000200';

  async up(q: QueryRunner): Promise<void> {
    // --- segments and static members -------------------------------------------------------------
    await q.query(`
      CREATE TABLE contact_segments (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        name text NOT NULL,
        description text,
        type text NOT NULL CHECK (type IN ('static','dynamic')),
        rules jsonb,
        contact_count int,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CHECK ((type = 'static') = (rules IS NULL)),
        CHECK ((type = 'static') = (contact_count IS NOT NULL))
      )`);
    await q.query(
      `CREATE INDEX contact_segments_org_created_idx ON contact_segments (organization_id, created_at DESC, id DESC)`,
    );
    await q.query(`
      CREATE TABLE contact_segment_members (
        segment_id uuid NOT NULL REFERENCES contact_segments(id) ON DELETE CASCADE,
        contact_id uuid NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (segment_id, contact_id)
      )`);
    // Deleting a contact cascades here: find its memberships without scanning every segment.
    await q.query(
      `CREATE INDEX contact_segment_members_contact_idx ON contact_segment_members (contact_id)`,
    );

    // --- static member counts --------------------------------------------------------------------
    // Segments are touched in id order so two statements never wait on each other in a cycle.
    await q.query(`
      CREATE FUNCTION contact_segment_count_on_insert() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE r record;
      BEGIN
        FOR r IN SELECT segment_id, count(*) AS n FROM new_rows GROUP BY 1 ORDER BY 1 LOOP
          UPDATE contact_segments SET contact_count = contact_count + r.n WHERE id = r.segment_id;
        END LOOP;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE FUNCTION contact_segment_count_on_delete() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE r record;
      BEGIN
        FOR r IN SELECT segment_id, count(*) AS n FROM old_rows GROUP BY 1 ORDER BY 1 LOOP
          UPDATE contact_segments SET contact_count = contact_count - r.n WHERE id = r.segment_id;
        END LOOP;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER contact_segment_members_count_ins AFTER INSERT ON contact_segment_members
        REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT
        EXECUTE FUNCTION contact_segment_count_on_insert()`);
    await q.query(`
      CREATE TRIGGER contact_segment_members_count_del AFTER DELETE ON contact_segment_members
        REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT
        EXECUTE FUNCTION contact_segment_count_on_delete()`);

    // --- dynamic segments ------------------------------------------------------------------------
    // The commonest dynamic segment (tags, a status, a createdAt window) counts with an
    // index-only scan and no join: the key answers `status = $x AND created_at >= $t` (and its
    // first page in `created_at DESC, id DESC` order), and the contact's tag ids (kept by the
    // contacts triggers) are in the index.
    await q.query(
      `CREATE INDEX contacts_org_status_created_tags_idx
         ON contacts (organization_id, status, created_at DESC, id DESC) INCLUDE (tag_ids)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX contacts_org_status_created_tags_idx`);
    await q.query(`DROP TABLE contact_segment_members`);
    await q.query(`DROP TABLE contact_segments`);
    await q.query(`DROP FUNCTION contact_segment_count_on_insert()`);
    await q.query(`DROP FUNCTION contact_segment_count_on_delete()`);
  }
}
