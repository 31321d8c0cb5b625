// How long import files are kept (§16), and the removal of an import's files once it ends.
import { Injectable } from '@nestjs/common';
import type { OrgId } from '../common/org-id';
import { FINISHED_IMPORT_STATUSES } from './contact-import.entity';
import { ImportFilesRepository } from './import-files.repository';
import { ImportStorage } from './import-storage';

/** The errors file an ended import keeps, if any. */
export function keptErrorsFile(row: {
  errors_file_path: string | null;
  errors_file_bytes: string;
}): string | null {
  return Number(row.errors_file_bytes) > 0 ? row.errors_file_path : null;
}

/** A draft (`uploaded`) not started within this many hours is deleted. */
export const DRAFT_HOURS = 24;
/** An errors file is deleted this many days after its import ended. */
export const ERRORS_FILE_DAYS = 30;

/**
 * An import's source is removed once the import ends, its errors file ERRORS_FILE_DAYS after that,
 * and a draft never started is deleted (row and file) after DRAFT_HOURS. `settle` is called by
 * whoever ends an import; the housekeeping (ImportFilesSweeper), the worker's periodic task,
 * catches up on whatever a stopped process left behind.
 */
@Injectable()
export class ImportFiles {
  constructor(
    private readonly repo: ImportFilesRepository,
    private readonly storage: ImportStorage,
  ) {}

  /**
   * Removes the files an import no longer needs: none while it may still run; once it ended, its
   * source (and its folder, when it has no errors file to keep); once its row is gone, its
   * folder. Safe to repeat and to run beside the housekeeping.
   */
  async settle(orgId: OrgId, importId: string): Promise<void> {
    const row = await this.repo.state(orgId, importId);
    if (!row) {
      await this.storage.removeImport(orgId, importId);
      return;
    }
    if (!(FINISHED_IMPORT_STATUSES as readonly string[]).includes(row.status)) return;
    await this.storage.removeEnded(orgId, importId, keptErrorsFile(row));
    await this.repo.markSourceRemoved(orgId, importId);
  }
}
