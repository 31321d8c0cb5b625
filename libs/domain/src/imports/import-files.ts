// How long import files stay on disk (§16), and the housekeeping that removes them.
import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { FINISHED_IMPORT_STATUSES } from './contact-import.entity';
import { ImportFilesRef, ImportFilesRepository } from './import-files.repository';
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

/**
 * An import's source is removed once the import ends, its errors file ERRORS_FILE_DAYS after that,
 * and a draft never started is deleted (row and file) after DRAFT_HOURS. `settle` is called by
 * whoever ends an import; `housekeeping`, the worker's periodic task, catches up on whatever a
 * stopped process left behind.
 */
@Injectable()
export class ImportFiles {
  private readonly logger = new Logger(ImportFiles.name);

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly repo: ImportFilesRepository,
    private readonly storage: ImportStorage,
    private readonly uploads: ImportUploads,
  ) {}

  /**
   * Removes the files an import no longer needs: none while it may still run; once it ended, its
   * source (and its folder, when it has no errors file to keep); once its row is gone, its
   * folder. Safe to repeat and to run beside the housekeeping.
   */
  async settle(orgId: string, importId: string): Promise<void> {
    const row = await this.repo.state(orgId, importId);
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
    const rows = await this.repo.claimExpiredDrafts(DRAFT_HOURS, BATCH, em);
    for (const r of rows) await this.storage.removeImport(r.organization_id, r.id);
    await this.repo.deleteDrafts(rows, em);
    return rows.length;
  }

  /** Ended imports whose source is still on disk (the process that ended them stopped first). */
  private async removeEndedSources(em: EntityManager): Promise<number> {
    const rows = await this.repo.claimEndedSources(BATCH, em);
    await this.removeSources(em, rows);
    return rows.length;
  }

  private async removeSources(em: EntityManager, rows: ImportFilesRef[]): Promise<void> {
    if (!rows.length) return;
    for (const r of rows) {
      if (Number(r.errors_file_bytes) > 0) await this.storage.removeSource(r.organization_id, r.id);
      else await this.storage.removeImport(r.organization_id, r.id);
    }
    await this.repo.markSourcesRemoved(rows, em);
  }

  /** Errors files ERRORS_FILE_DAYS after their import ended; the import row and counters stay. */
  private async deleteAgedErrorsFiles(em: EntityManager): Promise<number> {
    const rows = await this.repo.claimAgedErrorsFiles(ERRORS_FILE_DAYS, BATCH, em);
    for (const r of rows) await this.storage.removeImport(r.organization_id, r.id);
    await this.repo.markErrorsFilesRemoved(rows, em);
    return rows.length;
  }
}
