// Across organizations: the import files housekeeping (§16), the worker's periodic task. It catches
// up on whatever a stopped process left behind: drafts never started, sources of ended imports,
// aged errors files, reservations and incoming files of uploads that died.
import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { asOrgId } from '../common/org-id';
import { query, sql } from '../database/sql';
import { FINISHED_IMPORT_STATUSES } from './contact-import.entity';
import { DRAFT_HOURS, ERRORS_FILE_DAYS, keptErrorsFile } from './import-files';
import { ImportStorage } from './import-storage';

/** An incoming file not written for this long is what a dead upload left. */
const STALE_INCOMING_MS = 60 * 60 * 1000;
/** Rows per housekeeping transaction. */
const BATCH = 100;

/** An import whose files the housekeeping handles, as claimed. */
interface ImportFilesRow {
  id: string;
  organization_id: string;
  errors_file_path: string | null;
  errors_file_bytes: string;
}

export interface HousekeepingResult {
  draftsDeleted: number;
  sourcesRemoved: number;
  errorsFilesDeleted: number;
  reservationsDeleted: number;
  incomingRemoved: number;
}

/** The organizations' and imports' id arrays of claimed rows, for an unnest. */
function idArrays(rows: ImportFilesRow[]): [string[], string[]] {
  return [rows.map((r) => r.organization_id), rows.map((r) => r.id)];
}

@Injectable()
export class ImportFilesSweeper {
  private readonly logger = new Logger(ImportFilesSweeper.name);

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly storage: ImportStorage,
  ) {}

  /** One pass of every cleanup; each claims its rows with SKIP LOCKED, so replicas share it. */
  async housekeeping(): Promise<HousekeepingResult> {
    const result: HousekeepingResult = {
      draftsDeleted: await this.inBatches((em) => this.deleteExpiredDrafts(em)),
      sourcesRemoved: await this.inBatches((em) => this.removeEndedSources(em)),
      errorsFilesDeleted: await this.inBatches((em) => this.deleteAgedErrorsFiles(em)),
      reservationsDeleted: await this.deleteExpiredReservations(),
      incomingRemoved: await this.storage.removeStaleIncoming(
        new Date(Date.now() - STALE_INCOMING_MS),
      ),
    };
    if (Object.values(result).some((n) => n > 0))
      this.logger.log({ msg: 'import files housekeeping', ...result });
    return result;
  }

  /** Runs `step` in transactions of BATCH rows until one finds fewer; returns the total. */
  private async inBatches(step: (em: EntityManager) => Promise<number>): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await this.ds.transaction(step);
      total += n;
      if (n < BATCH) return total;
    }
  }

  /**
   * Drafts (`uploaded`) older than DRAFT_HOURS whose files are still there: files first, then the
   * rows, under the rows' locks (a crash between leaves the rows to redo).
   */
  private async deleteExpiredDrafts(em: EntityManager): Promise<number> {
    const rows = await query<ImportFilesRow>(
      em,
      sql`SELECT id, organization_id, errors_file_path, errors_file_bytes FROM contact_imports
           WHERE source_removed_at IS NULL AND status = 'uploaded'
             AND created_at < now() - make_interval(hours => ${DRAFT_HOURS})
           ORDER BY created_at LIMIT ${BATCH} FOR UPDATE SKIP LOCKED`,
    );
    if (!rows.length) return 0;
    for (const r of rows) await this.storage.removeImport(asOrgId(r.organization_id), r.id);
    const [orgs, ids] = idArrays(rows);
    await query(
      em,
      sql`DELETE FROM contact_imports i
           USING unnest(${orgs}::uuid[], ${ids}::uuid[]) AS d(organization_id, id)
           WHERE i.organization_id = d.organization_id AND i.id = d.id AND i.status = 'uploaded'`,
    );
    return rows.length;
  }

  /** Ended imports whose source is still stored (the process that ended them stopped first). */
  private async removeEndedSources(em: EntityManager): Promise<number> {
    const rows = await query<ImportFilesRow>(
      em,
      sql`SELECT id, organization_id, errors_file_path, errors_file_bytes FROM contact_imports
           WHERE source_removed_at IS NULL AND status = ANY(${FINISHED_IMPORT_STATUSES}::text[])
           ORDER BY created_at LIMIT ${BATCH} FOR UPDATE SKIP LOCKED`,
    );
    if (!rows.length) return 0;
    for (const r of rows) {
      await this.storage.removeEnded(asOrgId(r.organization_id), r.id, keptErrorsFile(r));
    }
    const [orgs, ids] = idArrays(rows);
    await query(
      em,
      sql`UPDATE contact_imports i SET source_removed_at = coalesce(i.source_removed_at, now())
            FROM unnest(${orgs}::uuid[], ${ids}::uuid[]) AS d(organization_id, id)
           WHERE i.organization_id = d.organization_id AND i.id = d.id`,
    );
    return rows.length;
  }

  /**
   * Errors files ERRORS_FILE_DAYS after their import ended, with the import's folder; the import
   * row and counters stay.
   */
  private async deleteAgedErrorsFiles(em: EntityManager): Promise<number> {
    const rows = await query<ImportFilesRow>(
      em,
      sql`SELECT id, organization_id, errors_file_path, errors_file_bytes FROM contact_imports
           WHERE errors_file_path IS NOT NULL AND status = ANY(${FINISHED_IMPORT_STATUSES}::text[])
             AND completed_at < now() - make_interval(days => ${ERRORS_FILE_DAYS})
           ORDER BY completed_at LIMIT ${BATCH} FOR UPDATE SKIP LOCKED`,
    );
    if (!rows.length) return 0;
    for (const r of rows) await this.storage.removeImport(asOrgId(r.organization_id), r.id);
    const [orgs, ids] = idArrays(rows);
    await query(
      em,
      sql`UPDATE contact_imports i
             SET errors_file_path = NULL, errors_file_bytes = 0,
                 source_removed_at = coalesce(i.source_removed_at, now()), updated_at = now()
            FROM unnest(${orgs}::uuid[], ${ids}::uuid[]) AS d(organization_id, id)
           WHERE i.organization_id = d.organization_id AND i.id = d.id`,
    );
    return rows.length;
  }

  /** Deletes upload reservations expired for an hour (their uploads died); answers how many. */
  private async deleteExpiredReservations(): Promise<number> {
    const rows = await query(
      this.ds,
      sql`DELETE FROM import_upload_reservations
           WHERE expires_at < now() - interval '1 hour' RETURNING organization_id`,
    );
    return rows.length;
  }
}
