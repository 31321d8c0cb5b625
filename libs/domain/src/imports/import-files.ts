// How long import files stay on disk (§16): an import's source is removed once the import ends,
// its errors file ERRORS_FILE_DAYS after that, and a draft never started is deleted (row and file)
// after DRAFT_HOURS. `settle` is called by whoever ends an import; `housekeeping`, the worker's
// periodic task, catches up on whatever a stopped process left behind.
import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { FINISHED_IMPORT_STATUSES } from './contact-import.entity';
import { ImportStorage } from './import-storage';
import { ImportUploads } from './import-uploads';

/** A draft (`uploaded`) not started within this many hours is deleted. */
export const DRAFT_HOURS = 24;
/** An errors file is deleted this many days after its import ended. */
export const ERRORS_FILE_DAYS = 30;
/** An incoming file not written for this long is what a dead upload left. */
const STALE_INCOMING_MS = 60 * 60 * 1000;
/** Rows per housekeeping transaction. */
const BATCH = 100;

export interface HousekeepingResult {
  draftsDeleted: number;
  sourcesRemoved: number;
  errorsFilesDeleted: number;
  reservationsDeleted: number;
  incomingRemoved: number;
}

interface ImportRef {
  id: string;
  organization_id: string;
  errors_file_bytes: string;
}

@Injectable()
export class ImportFiles {
  private readonly logger = new Logger(ImportFiles.name);

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly storage: ImportStorage,
    private readonly uploads: ImportUploads,
  ) {}

  /**
   * Removes the files an import no longer needs: none while it may still run; once it ended, its
   * source (and its folder, when it has no errors file to keep); once its row is gone, its
   * folder. Safe to repeat and to run beside the housekeeping.
   */
  async settle(orgId: string, importId: string): Promise<void> {
    const [row] = (await this.ds.query(
      `SELECT id, organization_id, errors_file_bytes, status FROM contact_imports
        WHERE id = $1 AND organization_id = $2`,
      [importId, orgId],
    )) as (ImportRef & { status: string })[];
    if (!row) {
      await this.storage.removeImport(orgId, importId);
      return;
    }
    if (!(FINISHED_IMPORT_STATUSES as readonly string[]).includes(row.status)) return;
    await this.removeSources(this.ds.manager, [row]);
  }

  /** One pass of every cleanup; each claims its rows with SKIP LOCKED, so replicas share it. */
  async housekeeping(): Promise<HousekeepingResult> {
    const result: HousekeepingResult = {
      draftsDeleted: await this.inBatches((em) => this.deleteExpiredDrafts(em)),
      sourcesRemoved: await this.inBatches((em) => this.removeEndedSources(em)),
      errorsFilesDeleted: await this.inBatches((em) => this.deleteAgedErrorsFiles(em)),
      reservationsDeleted: await this.uploads.deleteExpired(),
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

  /** Files first, then the rows, under the rows' locks: a crash between leaves the rows to redo. */
  private async deleteExpiredDrafts(em: EntityManager): Promise<number> {
    const rows = (await em.query(
      `SELECT id, organization_id FROM contact_imports
        WHERE source_removed_at IS NULL AND status = 'uploaded'
          AND created_at < now() - make_interval(hours => $1)
        ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED`,
      [DRAFT_HOURS, BATCH],
    )) as ImportRef[];
    for (const r of rows) await this.storage.removeImport(r.organization_id, r.id);
    if (rows.length) {
      await em.query(
        `DELETE FROM contact_imports i USING unnest($1::uuid[], $2::uuid[]) AS d(organization_id, id)
          WHERE i.organization_id = d.organization_id AND i.id = d.id AND i.status = 'uploaded'`,
        [rows.map((r) => r.organization_id), rows.map((r) => r.id)],
      );
    }
    return rows.length;
  }

  /** Ended imports whose source is still on disk (the process that ended them stopped first). */
  private async removeEndedSources(em: EntityManager): Promise<number> {
    const rows = (await em.query(
      `SELECT id, organization_id, errors_file_bytes FROM contact_imports
        WHERE source_removed_at IS NULL AND status = ANY($1)
        ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED`,
      [FINISHED_IMPORT_STATUSES, BATCH],
    )) as ImportRef[];
    await this.removeSources(em, rows);
    return rows.length;
  }

  private async removeSources(em: EntityManager, rows: ImportRef[]): Promise<void> {
    if (!rows.length) return;
    for (const r of rows) {
      if (Number(r.errors_file_bytes) > 0) await this.storage.removeSource(r.organization_id, r.id);
      else await this.storage.removeImport(r.organization_id, r.id);
    }
    await em.query(
      `UPDATE contact_imports i SET source_removed_at = coalesce(i.source_removed_at, now())
         FROM unnest($1::uuid[], $2::uuid[]) AS d(organization_id, id)
        WHERE i.organization_id = d.organization_id AND i.id = d.id`,
      [rows.map((r) => r.organization_id), rows.map((r) => r.id)],
    );
  }

  /** Errors files ERRORS_FILE_DAYS after their import ended; the import row and counters stay. */
  private async deleteAgedErrorsFiles(em: EntityManager): Promise<number> {
    const rows = (await em.query(
      `SELECT id, organization_id FROM contact_imports
        WHERE errors_file_path IS NOT NULL AND status = ANY($1)
          AND completed_at < now() - make_interval(days => $2)
        ORDER BY completed_at LIMIT $3 FOR UPDATE SKIP LOCKED`,
      [FINISHED_IMPORT_STATUSES, ERRORS_FILE_DAYS, BATCH],
    )) as ImportRef[];
    for (const r of rows) await this.storage.removeImport(r.organization_id, r.id);
    if (rows.length) {
      await em.query(
        `UPDATE contact_imports i
            SET errors_file_path = NULL, errors_file_bytes = 0,
                source_removed_at = coalesce(i.source_removed_at, now()), updated_at = now()
           FROM unnest($1::uuid[], $2::uuid[]) AS d(organization_id, id)
          WHERE i.organization_id = d.organization_id AND i.id = d.id`,
        [rows.map((r) => r.organization_id), rows.map((r) => r.id)],
      );
    }
    return rows.length;
  }
}
