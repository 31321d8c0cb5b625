import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Index support for dynamic segments (bench/segments.ts). A status condition is the most common
 * companion of a date window: this index answers `status = $x AND created_at >= $t` with an
 * index-only scan for counts, and in `ORDER BY created_at DESC, id DESC` order for the first page.
 * The tag side is served by contact_tag_assignments' (tag_id, contact_id) and primary key indexes.
 * IF NOT EXISTS: a large installation can build it CONCURRENTLY by hand before deploying.
 */
export class SegmentsIndexes1763700000301 implements MigrationInterface {
  name = 'SegmentsIndexes1763700000301';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX IF NOT EXISTS contacts_org_status_created_idx
         ON contacts (organization_id, status, created_at DESC, id DESC)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS contacts_org_status_created_idx`);
  }
}
