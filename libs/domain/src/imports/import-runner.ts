// Processes one import (§7), in the worker or in the CLI. A run first takes the import's lease
// (one worker at a time; a stale heartbeat lets another take over), reads the file once to count
// the rows (and, when partial uploads are off, to validate every row before anything is written),
// then streams it again from the last checkpoint and commits one transaction per batch, in file
// order, one at a time: contacts, channels, memberships, tags, the counters and the new checkpoint
// together. A worker killed at any point leaves the last committed batch as the truth, and the
// next run resumes after it.
import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { access, rm } from 'node:fs/promises';
import { DataSource, EntityManager, QueryFailedError } from 'typeorm';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { ContactListsService } from '../contacts/contact-lists.service';
import { inTransaction } from '../database/transaction';
import { NotFoundError } from '../errors/domain-errors';
import { ContactImport } from './contact-import.entity';
import { describeCsvError, readCsv } from './csv-file';
import { errorLine, ErrorsFile } from './import-errors-file';
import { ImportFiles } from './import-files';
import { checkRow, compileMappings, CompiledMapping } from './import-fields';
import { EmailHashFilter } from './email-hash-filter';
import { ImportStorage } from './import-storage';
import { BatchResult, ImportWriter, PreparedRow, prepareRow } from './import-writer';

/** The run ends without changing the import: cancelled, deleted, or taken over by another worker. */
class ImportStopped extends Error {}

/** This process is shutting down: the run stops at a batch boundary and hands the import back. */
class WorkerStopping extends Error {}

/** The import cannot succeed: it ends `failed` with this reason. */
class ImportFailure extends Error {}

/** Errors from the CSV parser (the file itself is broken). */
class CsvBroken extends Error {}

/** After this many runs that ended in an unexpected error, the import is failed, not retried. */
const MAX_ATTEMPTS = 5;
const TARGET_COMMIT_MS = 600;
const MIN_BATCH = 100;

interface RawRow {
  rowNo: number;
  record: string[];
  undecodable?: number[];
  endByte: number;
}

interface Prepared {
  firstRow: number;
  lastRow: number;
  endByte: number;
  valid: PreparedRow[];
  errorLines: string[];
}

@Injectable()
export class ImportRunner {
  private readonly logger = new Logger(ImportRunner.name);
  private readonly batchSize: number;
  private readonly leaseSeconds: number;
  private stopping = false;

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly storage: ImportStorage,
    private readonly writer: ImportWriter,
    private readonly lists: ContactListsService,
    private readonly files: ImportFiles,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.batchSize = config.imports.batchSize;
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
   * Runs the import if no live worker holds it. Returns false when another worker has it or it
   * is not runnable (finished, cancelled, deleted).
   */
  async run(importId: string): Promise<boolean> {
    const lease = randomUUID();
    const imp = await this.claim(importId, lease);
    if (!imp) return false;
    const log = { importId, organizationId: imp.organizationId, attempt: imp.attempts };
    this.logger.log({ msg: 'import run started', ...log, resumeFromRow: imp.checkpointRow });
    let lost = false;
    const beat = setInterval(
      () => {
        this.ds
          .query(
            `UPDATE contact_imports SET heartbeat_at = now() WHERE id = $1 AND lease_token = $2`,
            [importId, lease],
          )
          .then(
            (res: [unknown[], number]) => {
              if (res[1] === 0) lost = true;
            },
            () => undefined,
          );
      },
      Math.max(500, (this.leaseSeconds * 1000) / 3),
    );
    beat.unref();
    try {
      if (imp.attempts > MAX_ATTEMPTS) {
        throw new ImportFailure(
          `The import could not be completed after ${MAX_ATTEMPTS} attempts (see the worker log)`,
        );
      }
      const source = this.storage.absolute(imp.filePath);
      try {
        await access(source);
      } catch {
        throw new ImportFailure('The uploaded file is no longer available');
      }
      const mapping = compileMappings(imp.fieldMappings, imp.headers);
      if (!imp.scanned) await this.scan(imp, mapping, source, lease, () => lost);
      await this.write(imp, mapping, source, lease, () => lost);
      const status = await this.finish(imp, lease);
      this.logger.log({ msg: 'import run finished', ...log, status });
      return true;
    } catch (err) {
      if (err instanceof WorkerStopping) {
        this.logger.log({ msg: 'import run handed back (shutdown)', ...log });
        await this.release(importId, lease);
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
      if (err instanceof NotFoundError && /Contact list/.test(err.message)) {
        await this.fail(imp, lease, 'The contact list of this import was deleted while it ran');
        return true;
      }
      this.logger.error({ msg: 'import run failed', ...log, err: (err as Error).message });
      // Let the sweeper hand it to a worker again (the next attempt resumes from the checkpoint).
      await this.release(importId, lease);
      throw err;
    } finally {
      clearInterval(beat);
      // Once the run's own files are closed: an import that ended (here or by a cancel) loses
      // its source, a deleted one its folder (§16). Nothing changes for one still running.
      await this.files.settle(imp.organizationId, importId).catch((err: Error) => {
        this.logger.warn({ msg: 'import files not settled', ...log, err: err.message });
      });
    }
  }

  /** Gives the lease up: the next sweep re-enqueues the import, which resumes at its checkpoint. */
  private async release(importId: string, lease: string): Promise<void> {
    await this.ds
      .query(
        `UPDATE contact_imports SET lease_token = NULL, heartbeat_at = NULL, enqueued_at = NULL
          WHERE id = $1 AND lease_token = $2`,
        [importId, lease],
      )
      .catch(() => undefined);
  }

  private async claim(importId: string, lease: string): Promise<ContactImport | null> {
    const [rows] = (await this.ds.query(
      `UPDATE contact_imports
          SET status = 'processing', lease_token = $2, heartbeat_at = now(),
              attempts = attempts + 1, started_at = coalesce(started_at, now()), updated_at = now()
        WHERE id = $1 AND status IN ('queued', 'processing')
          AND (lease_token IS NULL OR heartbeat_at IS NULL
               OR heartbeat_at < now() - make_interval(secs => $3))
        RETURNING id`,
      [importId, lease, this.leaseSeconds],
    )) as [unknown[], number];
    if (!rows.length) return null;
    return this.ds.getRepository(ContactImport).findOneBy({ id: importId });
  }

  /**
   * First read of the file: counts the rows (totalRows shows the running count while it reads)
   * and, when partial uploads are off, validates every row; one invalid row fails the import
   * before anything is written, and the errors file lists them all.
   */
  private async scan(
    imp: ContactImport,
    mapping: CompiledMapping,
    source: string,
    lease: string,
    isLost: () => boolean,
  ): Promise<void> {
    const validate = !imp.allowPartialUpload;
    const errorsRel = this.storage.errorsPath(imp.organizationId, imp.id);
    const errors = validate
      ? await ErrorsFile.open(this.storage.absolute(errorsRel), 0, imp.headers)
      : null;
    let rows = 0;
    let invalid = 0;
    let firstProblem = '';
    let header = true;
    let lastReport = Date.now();
    let pendingLines: string[] = [];
    try {
      for await (const rec of this.records(source, imp.delimiter, 0)) {
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
          await this.progress(imp.id, lease, rows, isLost);
        }
      }
      if (errors) await errors.append(pendingLines);
    } finally {
      await errors?.close();
    }
    if (invalid > 0) {
      errors!.commit(errors!.committed + errors!.pending);
      const reason =
        `${invalid} of ${rows} rows are invalid and partial uploads are off, so nothing was ` +
        `imported. First: ${firstProblem}. The errors file lists every invalid row.`;
      const [done] = (await this.ds.query(
        `UPDATE contact_imports
            SET status = 'failed', total_rows = $3, processed_rows = $4, error_count = $4,
                errors_file_path = $5, errors_file_bytes = $6, error_reason = $7, scanned = true,
                completed_at = now(), lease_token = NULL, heartbeat_at = NULL, updated_at = now()
          WHERE id = $1 AND lease_token = $2 AND status = 'processing'
          RETURNING id`,
        [imp.id, lease, rows, invalid, errorsRel, errors!.committed, reason],
      )) as [unknown[], number];
      if (!done.length) throw new ImportStopped('lease lost or cancelled during the scan');
      throw new ImportStopped('failed: invalid rows with partial uploads off');
    }
    if (errors) await rm(this.storage.absolute(errorsRel), { force: true });
    const [done] = (await this.ds.query(
      `UPDATE contact_imports SET total_rows = $3, scanned = true, heartbeat_at = now(),
              updated_at = now()
        WHERE id = $1 AND lease_token = $2 AND status = 'processing' RETURNING id`,
      [imp.id, lease, rows],
    )) as [unknown[], number];
    if (!done.length) throw new ImportStopped('lease lost or cancelled during the scan');
    imp.totalRows = rows;
    imp.scanned = true;
  }

  private async progress(id: string, lease: string, rows: number, isLost: () => boolean) {
    const [done] = (await this.ds.query(
      `UPDATE contact_imports SET total_rows = $3, heartbeat_at = now(), updated_at = now()
        WHERE id = $1 AND lease_token = $2 AND status = 'processing' RETURNING id`,
      [id, lease, rows],
    )) as [unknown[], number];
    if (!done.length || isLost()) throw new ImportStopped('lease lost or cancelled');
    if (this.stopping) throw new WorkerStopping();
  }

  /** Parser records; a broken file surfaces as CsvBroken with a readable reason. */
  private async *records(source: string, delimiter: ',' | ';', fromByte: number) {
    try {
      yield* readCsv(source, delimiter, fromByte);
    } catch (err) {
      // A read error (the file removed: the import was cancelled meanwhile) is not the CSV's.
      if (err && typeof err === 'object' && 'syscall' in err)
        throw new ImportFailure('The uploaded file is no longer available');
      throw new CsvBroken(describeCsvError(err));
    }
  }

  /**
   * Second read, from the checkpoint: batches of rows, each committed in its own transaction, one
   * at a time and in file order. While a batch's transaction runs, the next batch is read and
   * prepared (validation, hashing, encryption): the CPU-bound work of one overlaps the database
   * work of the other.
   */
  private async write(
    imp: ContactImport,
    mapping: CompiledMapping,
    source: string,
    lease: string,
    isLost: () => boolean,
  ): Promise<void> {
    const listId = await this.resolveList(imp, lease);
    const errorsRel = this.storage.errorsPath(imp.organizationId, imp.id);
    await this.storage.ensureImportDir(imp.organizationId, imp.id);
    const errors = await ErrorsFile.open(
      this.storage.absolute(errorsRel),
      imp.errorsFileBytes,
      imp.headers,
    );
    const filter = await EmailHashFilter.load(this.ds, imp.organizationId);
    const fromByte = imp.checkpointRow > 0 ? imp.checkpointByte : 0;
    let rowNo = imp.checkpointRow;
    let header = fromByte === 0;
    let batch: RawRow[] = [];
    /** The batch being committed: resolves to null once committed, else to its error. */
    let inFlight: Promise<unknown> = Promise.resolve(null);

    // Batches are sized so one commits in about TARGET_COMMIT_MS: polls see progress at least
    // every second whatever the machine's speed, and a crash loses at most that much work.
    let size = Math.min(this.batchSize, 1000);
    const commit = async (p: Prepared): Promise<void> => {
      const began = Date.now();
      const errorsLength = await errors.append(p.errorLines);
      await this.commitBatch(imp, lease, listId, p, errorsRel, errorsLength, filter);
      errors.commit(errorsLength);
      for (const r of p.valid) if (r.emailHash) filter.add(r.emailHash);
      const ms = Math.max(1, Date.now() - began);
      const rows = p.lastRow - p.firstRow + 1;
      const ideal = (rows * TARGET_COMMIT_MS) / ms;
      size = Math.round(Math.min(this.batchSize, Math.max(MIN_BATCH, (size + ideal) / 2)));
    };
    const flush = async () => {
      if (!batch.length) return;
      const prepared = this.prepare(batch, mapping);
      batch = [];
      const failure = await inFlight;
      if (failure) throw failure;
      if (isLost()) throw new ImportStopped('lease lost');
      if (this.stopping) throw new WorkerStopping();
      inFlight = commit(prepared).then(
        () => null,
        (err: unknown) => err,
      );
    };

    try {
      for await (const rec of this.records(source, imp.delimiter, fromByte)) {
        if (header) {
          header = false;
          continue;
        }
        rowNo++;
        batch.push({
          rowNo,
          record: rec.record,
          undecodable: rec.undecodable,
          endByte: rec.endByte,
        });
        if (batch.length >= size) await flush();
      }
      await flush();
      const failure = await inFlight;
      if (failure) throw failure;
    } catch (err) {
      // Let the batch in flight settle before the file handle goes away; the errors file keeps
      // what the committed batches hold.
      await inFlight;
      await errors.rollback();
      throw err;
    } finally {
      await errors.close();
    }
  }

  private prepare(rows: RawRow[], mapping: CompiledMapping): Prepared {
    const valid: PreparedRow[] = [];
    const errorLines: string[] = [];
    for (const r of rows) {
      const check = checkRow(r.record, mapping, r.undecodable);
      if (check.ok) valid.push(prepareRow(r.rowNo, check.values));
      else errorLines.push(errorLine(r.record, mapping.headerCount, r.rowNo, check.error));
    }
    return {
      firstRow: rows[0].rowNo,
      lastRow: rows[rows.length - 1].rowNo,
      endByte: rows[rows.length - 1].endByte,
      valid,
      errorLines,
    };
  }

  /**
   * One transaction: the import row locked and checked (still ours, still processing, checkpoint
   * right before the batch), the batch written, the counters and checkpoint moved. A batch that
   * meets a concurrent write of one of its emails (the unique index) is retried whole, looking
   * every row up.
   */
  private async commitBatch(
    imp: ContactImport,
    lease: string,
    listId: string | null,
    p: Prepared,
    errorsRel: string,
    errorsLength: number,
    filter: EmailHashFilter,
  ): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await inTransaction(this.ds, async (em: EntityManager) => {
          // The batch and its checkpoint commit together, so a commit lost in a database crash
          // loses both and the import redoes that batch: it need not wait for the WAL flush.
          await em.query(`SET LOCAL synchronous_commit = off`);
          // A batch's statements (and the triggers they fire) are estimated costly enough for
          // JIT, whose compilation (0.5 s and more per statement) a few thousand rows never repay.
          await em.query(`SET LOCAL jit = off`);
          const [row] = (await em.query(
            `SELECT status, lease_token, checkpoint_row FROM contact_imports WHERE id = $1
              FOR UPDATE`,
            [imp.id],
          )) as { status: string; lease_token: string | null; checkpoint_row: number }[];
          if (!row) throw new ImportStopped('the import was deleted');
          if (row.status !== 'processing') throw new ImportStopped(`the import is ${row.status}`);
          if (row.lease_token !== lease) throw new ImportStopped('another worker took the import');
          if (row.checkpoint_row !== p.firstRow - 1)
            throw new ImportStopped('the checkpoint moved under this run');
          let result: BatchResult = { newCount: 0, duplicateCount: 0 };
          if (p.valid.length) {
            result = await this.writer.writeBatch(
              em,
              {
                organizationId: imp.organizationId,
                duplicateHandling: imp.duplicateHandling,
                listId,
                tags: imp.tags,
              },
              p.valid,
              // A retry after a unique violation: someone wrote one of these emails since
              // the filter was loaded, so every row is looked up.
              attempt === 1 ? filter : null,
            );
          }
          const rows = p.lastRow - p.firstRow + 1;
          const errorsCount = rows - p.valid.length;
          await em.query(
            `UPDATE contact_imports
                SET processed_rows = processed_rows + $2,
                    success_count = success_count + $3,
                    error_count = error_count + $4,
                    new_count = new_count + $5,
                    duplicate_count = duplicate_count + $6,
                    checkpoint_row = $7, checkpoint_byte = $8,
                    errors_file_bytes = $9,
                    errors_file_path = CASE WHEN error_count + $4 > 0 THEN $10 ELSE errors_file_path END,
                    heartbeat_at = now(), updated_at = now()
              WHERE id = $1`,
            [
              imp.id,
              rows,
              p.valid.length,
              errorsCount,
              result.newCount,
              result.duplicateCount,
              p.lastRow,
              p.endByte,
              errorsLength,
              errorsRel,
            ],
          );
        });
        return;
      } catch (err) {
        const duplicateEmail =
          err instanceof QueryFailedError &&
          (err as { code?: string }).code === '23505' &&
          /email_hash/.test(String((err as { constraint?: string }).constraint ?? ''));
        if (duplicateEmail && attempt < 3) continue;
        throw err;
      }
    }
  }

  /** The list named by the import: an existing one (by name, any case) or a new one. */
  private async resolveList(imp: ContactImport, lease: string): Promise<string | null> {
    if (!imp.listName) return null;
    if (imp.listId) {
      const [still] = await this.ds.query(
        `SELECT id FROM contact_lists WHERE id = $1 AND organization_id = $2`,
        [imp.listId, imp.organizationId],
      );
      if (still) return imp.listId;
      throw new ImportFailure('The contact list of this import was deleted while it ran');
    }
    const [found] = (await this.ds.query(
      `SELECT id FROM contact_lists WHERE organization_id = $1 AND lower(name) = lower($2)
        ORDER BY created_at, id LIMIT 1`,
      [imp.organizationId, imp.listName],
    )) as { id: string }[];
    const listId =
      found?.id ?? (await this.lists.create(imp.organizationId, { name: imp.listName })).list.id;
    const [done] = (await this.ds.query(
      `UPDATE contact_imports SET list_id = $3, updated_at = now()
        WHERE id = $1 AND lease_token = $2 AND status = 'processing' RETURNING id`,
      [imp.id, lease, listId],
    )) as [unknown[], number];
    if (!done.length) throw new ImportStopped('lease lost or cancelled');
    imp.listId = listId;
    return listId;
  }

  /** The end of a run: the final status (the errors file, if empty, goes with the settle). */
  private async finish(imp: ContactImport, lease: string): Promise<string> {
    const [rows] = (await this.ds.query(
      `UPDATE contact_imports
          SET status = CASE WHEN error_count > 0 THEN 'completed_with_errors' ELSE 'completed' END,
              errors_file_path = CASE WHEN error_count > 0 THEN errors_file_path ELSE NULL END,
              errors_file_bytes = CASE WHEN error_count > 0 THEN errors_file_bytes ELSE 0 END,
              completed_at = now(), lease_token = NULL, heartbeat_at = NULL, updated_at = now()
        WHERE id = $1 AND lease_token = $2 AND status = 'processing'
        RETURNING status, error_count`,
      [imp.id, lease],
    )) as [{ status: string; error_count: number }[], number];
    if (!rows.length) throw new ImportStopped('lease lost or cancelled at the end');
    return rows[0].status;
  }

  private async fail(imp: ContactImport, lease: string, reason: string): Promise<void> {
    const [, failed] = (await this.ds.query(
      `UPDATE contact_imports
          SET status = 'failed', error_reason = $3, completed_at = now(), lease_token = NULL,
              heartbeat_at = NULL, updated_at = now()
        WHERE id = $1 AND lease_token = $2 AND status = 'processing'`,
      [imp.id, lease, reason],
    )) as [unknown[], number];
    // Not when it was cancelled meanwhile (its source is removed at once, which a run still
    // reading it can meet). Only the reason's kind: parser messages can quote a cell.
    if (failed)
      this.logger.warn({ msg: 'import failed', importId: imp.id, reason: reason.split(':')[0] });
  }
}
