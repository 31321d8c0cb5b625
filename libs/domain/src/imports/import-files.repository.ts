// SQL of the import files' bookkeeping of one organization: an import's files, storage usage,
// upload reservations (the housekeeping across organizations is ImportFilesSweeper's).
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { OrgId } from '../common/org-id';
import { query, sql } from '../database/sql';
import type { ImportStatus } from './contact-import.entity';

type Db = DataSource | EntityManager;

/** What the removal of an import's files needs to know of it. */
export interface ImportFilesState {
  status: ImportStatus;
  errors_file_path: string | null;
  errors_file_bytes: string;
}

@Injectable()
export class ImportFilesRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** The import's status and errors file; null once its row is gone. */
  async state(orgId: OrgId, id: string): Promise<ImportFilesState | null> {
    const [row] = await query<ImportFilesState>(
      this.ds,
      sql`SELECT id, organization_id, errors_file_path, errors_file_bytes, status FROM contact_imports
           WHERE organization_id = ${orgId}::uuid AND id = ${id}::uuid`,
    );
    return row ?? null;
  }

  /** Records that the import's source is gone. */
  async markSourceRemoved(orgId: OrgId, id: string): Promise<void> {
    await query(
      this.ds,
      sql`UPDATE contact_imports SET source_removed_at = coalesce(source_removed_at, now())
           WHERE organization_id = ${orgId}::uuid AND id = ${id}::uuid`,
    );
  }

  /**
   * Bytes of import files the organization holds: sources still on disk, errors files, and what
   * uploads under way have reserved (but `except`).
   */
  async usage(orgId: OrgId, db: Db = this.ds, except?: string): Promise<number> {
    const [row] = await query<{ bytes: string }>(
      db,
      sql`SELECT (SELECT coalesce(sum(CASE WHEN source_removed_at IS NULL THEN file_size ELSE 0 END
                                       + errors_file_bytes), 0)
                    FROM contact_imports WHERE organization_id = ${orgId}::uuid)
               + (SELECT coalesce(sum(bytes), 0) FROM import_upload_reservations
                   WHERE organization_id = ${orgId}::uuid AND expires_at > now()
                     AND id IS DISTINCT FROM ${except ?? null}::uuid) AS bytes`,
    );
    return Number(row.bytes);
  }

  /** The organization's reservations are granted one at a time: held until the transaction ends. */
  async lockReservations(orgId: OrgId, em: EntityManager): Promise<void> {
    await query(
      em,
      sql`SELECT pg_advisory_xact_lock(hashtextextended(${`import-storage:${orgId}`}, 0))`,
    );
  }

  /** Sets an upload's reservation to `bytes`, valid for `seconds`. */
  async reserve(
    orgId: OrgId,
    id: string,
    bytes: number,
    seconds: number,
    em: EntityManager,
  ): Promise<void> {
    await query(
      em,
      sql`INSERT INTO import_upload_reservations (id, organization_id, bytes, expires_at)
          VALUES (${id}::uuid, ${orgId}::uuid, ${bytes}, now() + make_interval(secs => ${seconds}))
          ON CONFLICT (id) DO UPDATE SET bytes = EXCLUDED.bytes, expires_at = EXCLUDED.expires_at
           WHERE import_upload_reservations.organization_id = EXCLUDED.organization_id`,
    );
  }

  async release(orgId: OrgId, id: string, db: Db = this.ds): Promise<void> {
    await query(
      db,
      sql`DELETE FROM import_upload_reservations
           WHERE organization_id = ${orgId}::uuid AND id = ${id}::uuid`,
    );
  }
}
