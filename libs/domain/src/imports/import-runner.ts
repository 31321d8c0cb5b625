// Processes one import (§7) in the worker or the CLI: lease, first read, then the batches.
import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { OrgId } from '../common/org-id';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { ContactListsService } from '../contacts/contact-lists.service';
import { ContactImport } from './contact-import.entity';
import type { ByteSource } from './csv-file';
import { isStoreOutage } from '../errors/store-outage';
import { importRecords, ImportBatches, RunControl } from './import-batches';
import {
  CsvBroken,
  ImportFailure,
  ImportStopped,
  LIST_DELETED,
  WorkerStopping,
} from './import-errors';
import { errorLine, ErrorsFile } from './import-errors-file';
import { ImportFiles } from './import-files';
import { checkRow, compileMappings, CompiledMapping } from './import-fields';
import { ImportStorage } from './import-storage';
import { ImportsRepository } from './imports.repository';

/** After this many runs that ended in an unexpected error, the import is failed, not retried. */
const MAX_ATTEMPTS = 5;

/**
 * A run first takes the import's lease (one worker at a time; a stale heartbeat lets another take
 * over), reads the file once to count the rows (and, when partial uploads are off, to validate
 * every row before anything is written), then writes it in batches from the last checkpoint
 * (ImportBatches). A worker killed at any point leaves the last committed batch as the truth, and
 * the next run resumes after it.
 */
@Injectable()
export class ImportRunner {
  private readonly logger = new Logger(ImportRunner.name);
  private readonly leaseSeconds: number;
  private stopping = false;

  constructor(
    private readonly imports: ImportsRepository,
    private readonly batches: ImportBatches,
    private readonly storage: ImportStorage,
    private readonly lists: ContactListsService,
    private readonly files: ImportFiles,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.leaseSeconds = config.imports.leaseSeconds;
  }

  /**
   * Called when the process shuts down: running imports stop at their next batch boundary and
   * release their lease, so another worker's sweeper resumes them at once.
   */
  requestStop(): void {
    this.stopping = true;
  }

  /**
   * Runs the organization's import if no live worker holds it. Returns false when another worker
   * has it or it is not runnable (finished, cancelled, deleted, another organization's).
   */
  async run(orgId: OrgId, importId: string): Promise<boolean> {
    const lease = randomUUID();
    const imp = await this.imports.claim(orgId, importId, lease, this.leaseSeconds);
    if (!imp) return false;
    const log = { importId, organizationId: orgId, attempt: imp.attempts };
    this.logger.log({ msg: 'import run started', ...log, resumeFromRow: imp.checkpointRow });
    let lost = false;
    const beat = setInterval(
      () => {
        this.imports.heartbeat(orgId, importId, lease).then(
          (held) => {
            if (!held) lost = true;
          },
          () => undefined,
        );
      },
      Math.max(500, (this.leaseSeconds * 1000) / 3),
    );
    beat.unref();
    const run: RunControl = { lease, lost: () => lost, stopping: () => this.stopping };
    try {
      if (imp.attempts > MAX_ATTEMPTS) {
        throw new ImportFailure(
          `The import could not be completed after ${MAX_ATTEMPTS} attempts (see the worker log)`,
        );
      }
      if ((await this.storage.objects.size(imp.filePath)) === null)
        throw new ImportFailure('The uploaded file is no longer available');
      const source = this.storage.bytes(imp.filePath);
      const mapping = compileMappings(imp.fieldMappings, imp.headers);
      if (!imp.scanned) await this.scan(imp, mapping, source, run);
      const listId = await this.resolveList(imp, lease);
      const errorsBytes = await this.batches.write(imp, mapping, source, listId, run);
      const errorsPath = errorsBytes > 0 ? await this.compactErrors(imp, errorsBytes) : null;
      const status = await this.imports.finish(orgId, importId, lease, errorsPath);
      if (!status) throw new ImportStopped('lease lost or cancelled at the end');
      this.logger.log({ msg: 'import run finished', ...log, status });
      return true;
    } catch (err) {
      if (err instanceof WorkerStopping) {
        this.logger.log({ msg: 'import run handed back (shutdown)', ...log });
        await this.imports.release(orgId, importId, lease).catch(() => undefined);
        return true;
      }
      if (err instanceof ImportStopped) {
        this.logger.log({ msg: 'import run stopped', ...log, reason: err.message });
        return true;
      }
      if (err instanceof ImportFailure || err instanceof CsvBroken) {
        await this.fail(imp, lease, err.message);
        return true;
      }
      // Let the sweeper hand it to a worker again (the next attempt resumes from the checkpoint).
      if (isStoreOutage(err)) {
        this.logger.warn({
          msg: 'import run handed back: a store is unavailable',
          ...log,
          err: (err as Error).message,
        });
        await this.imports.release(orgId, importId, lease, false).catch(() => undefined);
        return true;
      }
      this.logger.error({ msg: 'import run failed', ...log, err: (err as Error).message });
      await this.imports.release(orgId, importId, lease).catch(() => undefined);
      throw err;
    } finally {
      clearInterval(beat);
      // Once the run's own files are closed: an import that ended (here or by a cancel) loses
      // its source, a deleted one its folder (§16). Nothing changes for one still running.
      await this.files.settle(orgId, importId).catch((err: Error) => {
        this.logger.warn({ msg: 'import files not settled', ...log, err: err.message });
      });
    }
  }

  /**
   * First read of the file: counts the rows (totalRows shows the running count while it reads)
   * and, when partial uploads are off, validates every row; one invalid row fails the import
   * before anything is written, and the errors file lists them all.
   */
  private async scan(
    imp: ContactImport,
    mapping: CompiledMapping,
    source: ByteSource,
    run: RunControl,
  ): Promise<void> {
    const orgId = imp.organizationId;
    const validate = !imp.allowPartialUpload;
    const errors = validate
      ? await ErrorsFile.open(
          this.storage,
          this.storage.errorsPartsPath(orgId, imp.id),
          0,
          imp.headers,
        )
      : null;
    let rows = 0;
    let invalid = 0;
    let firstProblem = '';
    let header = true;
    let lastReport = Date.now();
    let pendingLines: string[] = [];
    for await (const rec of importRecords(source, imp.delimiter, 0)) {
      if (header) {
        header = false;
        continue;
      }
      rows++;
      if (validate) {
        const check = checkRow(rec.record, mapping, rec.undecodable);
        if (!check.ok) {
          invalid++;
          if (!firstProblem) firstProblem = `row ${rows}: ${check.error}`;
          pendingLines.push(errorLine(rec.record, mapping.headerCount, rows, check.error));
          if (pendingLines.length >= 1000) {
            await errors!.append(pendingLines);
            pendingLines = [];
          }
        }
      }
      if (Date.now() - lastReport >= 500) {
        lastReport = Date.now();
        const held = await this.imports.counting(orgId, imp.id, run.lease, rows);
        if (!held || run.lost()) throw new ImportStopped('lease lost or cancelled');
        if (run.stopping()) throw new WorkerStopping();
      }
    }
    if (errors) await errors.append(pendingLines);
    if (invalid > 0) {
      errors!.commit(errors!.committed + errors!.pending);
      const errorsPath = await this.compactErrors(imp, errors!.committed);
      const reason =
        `${invalid} of ${rows} rows are invalid and partial uploads are off, so nothing was ` +
        `imported. First: ${firstProblem}. The errors file lists every invalid row.`;
      const held = await this.imports.failedCount(orgId, imp.id, run.lease, {
        rows,
        invalid,
        errorsPath,
        errorsBytes: errors!.committed,
        reason,
      });
      if (!held) throw new ImportStopped('lease lost or cancelled during the scan');
      throw new ImportStopped('failed: invalid rows with partial uploads off');
    }
    if (!(await this.imports.counted(orgId, imp.id, run.lease, rows)))
      throw new ImportStopped('lease lost or cancelled during the scan');
    imp.totalRows = rows;
    imp.scanned = true;
  }

  /**
   * The errors file's parts as one object (the import is ending); answers its key. The parts go
   * once the row points to it (ImportFiles.settle).
   */
  private async compactErrors(imp: ContactImport, bytes: number): Promise<string> {
    const key = this.storage.errorsPath(imp.organizationId, imp.id);
    const parts = this.storage.errorsPartsPath(imp.organizationId, imp.id);
    await ErrorsFile.compact(this.storage, parts, bytes, key);
    return key;
  }

  /** The list named by the import: an existing one (by name, any case) or a new one. */
  private async resolveList(imp: ContactImport, lease: string): Promise<string | null> {
    const orgId = imp.organizationId;
    if (!imp.listName) return null;
    if (imp.listId) {
      if (await this.lists.exists(orgId, imp.listId)) return imp.listId;
      throw new ImportFailure(LIST_DELETED);
    }
    const listId =
      (await this.lists.idByName(orgId, imp.listName)) ??
      (await this.lists.create(orgId, { name: imp.listName })).list.id;
    if (!(await this.imports.setList(orgId, imp.id, lease, listId)))
      throw new ImportStopped('lease lost or cancelled');
    imp.listId = listId;
    return listId;
  }

  private async fail(imp: ContactImport, lease: string, reason: string): Promise<void> {
    // Not logged when it was cancelled meanwhile (its source is removed at once, which a run
    // still reading it can meet). Only the reason's kind: parser messages can quote a cell.
    if (await this.imports.fail(imp.organizationId, imp.id, lease, reason))
      this.logger.warn({ msg: 'import failed', importId: imp.id, reason: reason.split(':')[0] });
  }
}
