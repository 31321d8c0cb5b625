import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What import files an organization holds (§16). `source_removed_at` marks an import whose
 * uploaded file is gone (it is removed when the import ends): the quota counts `file_size` only
 * while it is null, plus `errors_file_bytes`. Imports that ended before this migration keep it
 * null, so the worker's housekeeping removes their sources too. `import_upload_reservations` holds
 * the bytes uploads still streaming have claimed against the quota, one row per upload, extended
 * as it grows; a reservation past `expires_at` (its upload died) no longer counts.
 */
export class ImportFileStorage1763700004200 implements MigrationInterface {
  name = 'ImportFileStorage1763700004200';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE contact_imports ADD COLUMN source_removed_at timestamptz`);
    // The housekeeping's scans: drafts and ended imports that still have a source file, and
    // ended imports that still have an errors file.
    await q.query(
      `CREATE INDEX contact_imports_source_kept_idx ON contact_imports (created_at)
        WHERE source_removed_at IS NULL`,
    );
    await q.query(
      `CREATE INDEX contact_imports_errors_kept_idx ON contact_imports (completed_at)
        WHERE errors_file_path IS NOT NULL`,
    );
    await q.query(`
      CREATE TABLE import_upload_reservations (
        id uuid PRIMARY KEY,
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        bytes bigint NOT NULL CHECK (bytes >= 0),
        expires_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(
      `CREATE INDEX import_upload_reservations_org_idx ON import_upload_reservations (organization_id, expires_at)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS import_upload_reservations`);
    await q.query(`DROP INDEX IF EXISTS contact_imports_errors_kept_idx`);
    await q.query(`DROP INDEX IF EXISTS contact_imports_source_kept_idx`);
    await q.query(`ALTER TABLE contact_imports DROP COLUMN IF EXISTS source_removed_at`);
  }
}
