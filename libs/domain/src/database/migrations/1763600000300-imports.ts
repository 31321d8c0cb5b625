// Imports baseline (§7): contact imports with their settings, counters and checkpoint, and the
// upload reservations counted against the organization's import storage quota (§16).
import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One contact_imports row per uploaded file: the settings chosen at start, the counters and the
 * checkpoint the worker commits with every batch (the last data row written and the byte offset
 * just after it, plus the committed length of the errors file), so a worker killed mid-file
 * resumes from its last committed batch. `lease_token` / `heartbeat_at` say which worker holds
 * the import; a stale heartbeat lets another worker take it over.
 *
 * Storage quota: `source_removed_at` marks an import whose uploaded file is gone (it is removed
 * when the import ends); the quota counts `file_size` only while it is null, plus
 * `errors_file_bytes`. `import_upload_reservations` holds the bytes uploads still streaming have
 * claimed, one row per upload, extended as it grows; a reservation past `expires_at` (its upload
 * died) no longer counts.
 */
export class Imports1763600000300 implements MigrationInterface {
  name = 'Imports1763600000300';

  async up(q: QueryRunner): Promise<void> {
    // --- imports ---------------------------------------------------------------------------------
    await q.query(`
      CREATE TABLE contact_imports (
        id uuid PRIMARY KEY,
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        file_name text NOT NULL,
        file_path text NOT NULL,
        file_size bigint NOT NULL CHECK (file_size >= 0),
        delimiter text NOT NULL CHECK (delimiter IN (',', ';')),
        headers text[] NOT NULL,
        status text NOT NULL DEFAULT 'uploaded' CHECK (status IN
          ('uploaded','queued','processing','completed','completed_with_errors','failed','cancelled')),
        total_rows int NOT NULL DEFAULT 0 CHECK (total_rows >= 0),
        processed_rows int NOT NULL DEFAULT 0 CHECK (processed_rows >= 0),
        success_count int NOT NULL DEFAULT 0 CHECK (success_count >= 0),
        error_count int NOT NULL DEFAULT 0 CHECK (error_count >= 0),
        new_count int NOT NULL DEFAULT 0 CHECK (new_count >= 0),
        duplicate_count int NOT NULL DEFAULT 0 CHECK (duplicate_count >= 0),
        duplicate_handling text NOT NULL DEFAULT 'skip' CHECK (duplicate_handling IN ('skip','update')),
        allow_partial_upload boolean NOT NULL DEFAULT false,
        list_name text,
        list_id uuid REFERENCES contact_lists(id) ON DELETE SET NULL,
        tags text[] NOT NULL DEFAULT '{}',
        consent_confirmed boolean NOT NULL DEFAULT false,
        field_mappings jsonb NOT NULL DEFAULT '[]',
        errors_file_path text,
        errors_file_bytes bigint NOT NULL DEFAULT 0,
        error_reason text,
        scanned boolean NOT NULL DEFAULT false,
        checkpoint_row int NOT NULL DEFAULT 0,
        checkpoint_byte bigint NOT NULL DEFAULT 0,
        cancel_requested_at timestamptz,
        lease_token uuid,
        heartbeat_at timestamptz,
        attempts int NOT NULL DEFAULT 0,
        job_id text,
        enqueued_at timestamptz,
        started_at timestamptz,
        completed_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        source_removed_at timestamptz,
        CHECK (processed_rows = success_count + error_count),
        CHECK (success_count = new_count + duplicate_count)
      )`);
    await q.query(
      `CREATE INDEX contact_imports_org_created_idx ON contact_imports (organization_id, created_at DESC, id DESC)`,
    );
    // The sweeper's scan: only imports that a worker should be running.
    await q.query(
      `CREATE INDEX contact_imports_active_idx ON contact_imports (heartbeat_at)
        WHERE status IN ('queued','processing')`,
    );
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

    // --- upload reservations ---------------------------------------------------------------------
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
    await q.query(`DROP TABLE import_upload_reservations`);
    await q.query(`DROP TABLE contact_imports`);
  }
}
