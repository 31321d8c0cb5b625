// SQL of the import files' bookkeeping: storage usage, upload reservations, housekeeping claims.
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { query, sql } from '../database/sql';
import { FINISHED_IMPORT_STATUSES, ImportStatus } from './contact-import.entity';

type Db = DataSource | EntityManager;

/** An import whose files the housekeeping handles. */
export interface ImportFilesRef {
  id: string;
  organization_id: string;
  errors_file_bytes: string;
}

@Injectable()
export class ImportFilesRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** The import's status and errors file length; null once its row is gone. */
  async state(
    orgId: string,
    id: string,
  ): Promise<(ImportFilesRef & { status: ImportStatus }) | null> {
    const [row] = await query<ImportFilesRef & { status: ImportStatus }>(
      this.ds,
      sql`SELECT id, organization_id, errors_file_bytes, status FROM contact_imports
           WHERE organization_id = ${orgId}::uuid AND id = ${id}::uuid`,
    );
    return row ?? null;
  }

  /** Drafts (`uploaded`) older than `hours` whose files are still there, locked. */
  claimExpiredDrafts(hours: number, limit: number, em: EntityManager): Promise<ImportFilesRef[]> {
    return query(
      em,
      sql`SELECT id, organization_id, errors_file_bytes FROM contact_imports
           WHERE source_removed_at IS NULL AND status = 'uploaded'
             AND created_at < now() - make_interval(hours => ${hours})
           ORDER BY created_at LIMIT ${limit} FOR UPDATE SKIP LOCKED`,
    );
  }

  /** Deletes these drafts. */
  async deleteDrafts(refs: ImportFilesRef[], em: EntityManager): Promise<void> {
    if (!refs.length) return;
    await query(
      em,
      sql`DELETE FROM contact_imports i
           USING unnest(${refs.map((r) => r.organization_id)}::uuid[], ${refs.map((r) => r.id)}::uuid[])
                 AS d(organization_id, id)
           WHERE i.organization_id = d.organization_id AND i.id = d.id AND i.status = 'uploaded'`,
    );
  }

  /** Ended imports whose source is still on disk, locked. */
  claimEndedSources(limit: number, em: EntityManager): Promise<ImportFilesRef[]> {
    return query(
      em,
      sql`SELECT id, organization_id, errors_file_bytes FROM contact_imports
           WHERE source_removed_at IS NULL AND status = ANY(${FINISHED_IMPORT_STATUSES}::text[])
           ORDER BY created_at LIMIT ${limit} FOR UPDATE SKIP LOCKED`,
    );
  }

  /** Records that these imports' sources are gone. */
  async markSourcesRemoved(refs: ImportFilesRef[], db: Db): Promise<void> {
    if (!refs.length) return;
    await query(
      db,
      sql`UPDATE contact_imports i SET source_removed_at = coalesce(i.source_removed_at, now())
            FROM unnest(${refs.map((r) => r.organization_id)}::uuid[], ${refs.map((r) => r.id)}::uuid[])
                 AS d(organization_id, id)
           WHERE i.organization_id = d.organization_id AND i.id = d.id`,
    );
  }

  /** Ended imports whose errors file is older than `days` after the end, locked. */
  claimAgedErrorsFiles(days: number, limit: number, em: EntityManager): Promise<ImportFilesRef[]> {
    return query(
      em,
      sql`SELECT id, organization_id, errors_file_bytes FROM contact_imports
           WHERE errors_file_path IS NOT NULL AND status = ANY(${FINISHED_IMPORT_STATUSES}::text[])
             AND completed_at < now() - make_interval(days => ${days})
           ORDER BY completed_at LIMIT ${limit} FOR UPDATE SKIP LOCKED`,
    );
  }

  /** Records that these imports' folders (errors file and source) are gone. */
  async markErrorsFilesRemoved(refs: ImportFilesRef[], em: EntityManager): Promise<void> {
    if (!refs.length) return;
    await query(
      em,
      sql`UPDATE contact_imports i
             SET errors_file_path = NULL, errors_file_bytes = 0,
                 source_removed_at = coalesce(i.source_removed_at, now()), updated_at = now()
            FROM unnest(${refs.map((r) => r.organization_id)}::uuid[], ${refs.map((r) => r.id)}::uuid[])
                 AS d(organization_id, id)
           WHERE i.organization_id = d.organization_id AND i.id = d.id`,
    );
  }

  /**
   * Bytes of import files the organization holds: sources still on disk, errors files, and what
   * uploads under way have reserved (but `except`).
   */
  async usage(orgId: string, db: Db = this.ds, except?: string): Promise<number> {
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
  async lockReservations(orgId: string, em: EntityManager): Promise<void> {
    await query(
      em,
      sql`SELECT pg_advisory_xact_lock(hashtextextended(${`import-storage:${orgId}`}, 0))`,
    );
  }

  /** Sets an upload's reservation to `bytes`, valid for `seconds`. */
  async reserve(
    orgId: string,
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

  async release(orgId: string, id: string, db: Db = this.ds): Promise<void> {
    await query(
      db,
      sql`DELETE FROM import_upload_reservations
           WHERE organization_id = ${orgId}::uuid AND id = ${id}::uuid`,
    );
  }

  /** Across organizations: deletes reservations expired for an hour; answers how many. */
  async deleteExpiredReservations(): Promise<number> {
    const rows = await query(
      this.ds,
      sql`DELETE FROM import_upload_reservations
           WHERE expires_at < now() - interval '1 hour' RETURNING organization_id`,
    );
    return rows.length;
  }
}
