// The second read of an import's file: batches committed in file order, two at a time.
import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { DataSource, EntityManager } from 'typeorm';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { ContactsBulkService, emailWrittenMeanwhile } from '../contacts/contacts-bulk.service';
import { inTransactionIf } from '../database/transaction';
import { ContactImport } from './contact-import.entity';
import { ObjectIntegrityError } from '../storage/object-cipher';
import { ObjectNotFound } from '../storage/object-store';
import { ByteSource, describeCsvError, isCsvError, readCsv } from './csv-file';
import {
  CsvBroken,
  ImportFailure,
  ImportStopped,
  LIST_DELETED,
  WorkerStopping,
} from './import-errors';
import { errorLine, ErrorsFile } from './import-errors-file';
import { checkRow, CompiledMapping } from './import-fields';
import { PreparedRow, prepareRow } from './import-rows';
import { ImportStorage } from './import-storage';
import { ImportsRepository } from './imports.repository';

const TARGET_COMMIT_MS = 600;
const MIN_BATCH = 100;
const BATCHES_IN_FLIGHT = 2;
/**
 * Rows prepared per event-loop turn: between them the batches in flight get their next statements
 * sent, so their transactions do not wait on the preparation of the next batch.
 */
const PREPARE_ROWS_PER_TURN = 100;
/**
 * How long a batch waits for the batch before it to take its turn first. Past it, that batch may
 * be waiting for a row this one wrote (the same email in both): this one takes the import row
 * anyway, finds the turn not yet its own and rolls back, which lets that batch go on.
 */
export const TURN_WAIT_MS = 2000;

/** What a run tells its batches: whether it lost its lease, whether the process is stopping. */
export interface RunControl {
  lease: string;
  lost(): boolean;
  stopping(): boolean;
}

interface RawRow {
  rowNo: number;
  record: string[];
  undecodable?: number[];
  endByte: number;
}

/** A batch validated and prepared, ready for its transaction. */
interface Prepared {
  /** Its place among the run's batches (0, 1, 2…). */
  seq: number;
  firstRow: number;
  lastRow: number;
  endByte: number;
  valid: PreparedRow[];
  errorLines: string[];
}

/** The file's records from `fromByte`; a broken file surfaces as CsvBroken with a readable reason. */
export async function* importRecords(source: ByteSource, delimiter: ',' | ';', fromByte: number) {
  try {
    yield* readCsv(source, delimiter, fromByte);
  } catch (err) {
    // The file removed (the import was cancelled meanwhile) or changed in the store is not the
    // CSV's fault; a store that cannot be reached is no fault of the file either: that error goes
    // on, and the run is handed back and resumed from its checkpoint.
    if (err instanceof ObjectNotFound || (err as NodeJS.ErrnoException)?.code === 'ENOENT')
      throw new ImportFailure('The uploaded file is no longer available');
    if (err instanceof ObjectIntegrityError)
      throw new ImportFailure('The uploaded file failed its integrity check in storage');
    if (isCsvError(err)) throw new CsvBroken(describeCsvError(err));
    throw err;
  }
}

@Injectable()
export class ImportBatches {
  private readonly batchSize: number;

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly imports: ImportsRepository,
    private readonly contacts: ContactsBulkService,
    private readonly storage: ImportStorage,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.batchSize = config.imports.batchSize;
  }

  /**
   * Writes the file from the checkpoint. While a batch's transaction runs, the next batch is read
   * and prepared (validation, hashing, encryption; a hundred rows per event-loop turn) and its
   * transaction started: its new contacts are written while the batch before finishes, so the two
   * use both the worker's and the database's cores; they commit one after the other, in file
   * order (`commit`). Batches are sized so one commits in about TARGET_COMMIT_MS: polls see
   * progress at least every second whatever the machine's speed, and a crash loses at most that
   * much work. Answers the errors file's committed length.
   */
  async write(
    imp: ContactImport,
    mapping: CompiledMapping,
    source: ByteSource,
    listId: string | null,
    run: RunControl,
  ): Promise<number> {
    const errorsPath = this.storage.errorsPartsPath(imp.organizationId, imp.id);
    const errors = await ErrorsFile.open(
      this.storage,
      errorsPath,
      imp.errorsFileBytes,
      imp.headers,
    );
    const fromByte = imp.checkpointRow > 0 ? imp.checkpointByte : 0;
    let rowNo = imp.checkpointRow;
    let header = fromByte === 0;
    let batch: RawRow[] = [];
    let size = Math.min(this.batchSize, 1000);
    let seq = 0;
    /** The batches in flight, oldest first. */
    const inFlight: Started[] = [];

    const commit = async (p: Prepared, previous: Started | null, onTurn: () => void) => {
      const began = Date.now();
      // Called in file order, so error lines are appended in file order (ErrorsFile.append).
      const errorsLength = await errors.append(p.errorLines);
      await this.commit(imp, run.lease, listId, p, errorsPath, errorsLength, previous, onTurn);
      errors.commit(errorsLength);
      const ms = Math.max(1, Date.now() - began);
      const ideal = ((p.lastRow - p.firstRow + 1) * TARGET_COMMIT_MS) / ms;
      size = Math.round(Math.min(this.batchSize, Math.max(MIN_BATCH, (size + ideal) / 2)));
    };
    const flush = async () => {
      if (!batch.length) return;
      const prepared = await this.prepare(batch, mapping, seq++);
      batch = [];
      // At most BATCHES_IN_FLIGHT at once: the oldest must be done before another starts.
      if (inFlight.length >= BATCHES_IN_FLIGHT) {
        const failure = await inFlight.shift()!.outcome;
        if (failure) throw failure;
      }
      if (run.lost()) throw new ImportStopped('lease lost');
      if (run.stopping()) throw new WorkerStopping();
      let onTurn!: () => void;
      const turn = new Promise<void>((resolve) => (onTurn = resolve));
      const outcome = settled(commit(prepared, inFlight.at(-1) ?? null, onTurn));
      void outcome.then(onTurn);
      inFlight.push({ outcome, turn });
    };

    try {
      for await (const rec of importRecords(source, imp.delimiter, fromByte)) {
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
      for (const { outcome } of inFlight) {
        const failure = await outcome;
        if (failure) throw failure;
      }
    } catch (err) {
      // Let the batches in flight settle first; the errors file keeps what committed batches hold.
      await Promise.all(inFlight.map((b) => b.outcome));
      await errors.rollback();
      throw err;
    }
    return errors.committed;
  }

  private async prepare(rows: RawRow[], mapping: CompiledMapping, seq: number): Promise<Prepared> {
    const valid: PreparedRow[] = [];
    const errorLines: string[] = [];
    for (const [i, r] of rows.entries()) {
      if (i > 0 && i % PREPARE_ROWS_PER_TURN === 0) await nextTurn();
      const check = checkRow(r.record, mapping, r.undecodable);
      if (check.ok) valid.push(prepareRow(r.rowNo, check.values));
      else errorLines.push(errorLine(r.record, mapping.headerCount, r.rowNo, check.error));
    }
    return {
      seq,
      firstRow: rows[0].rowNo,
      lastRow: rows[rows.length - 1].rowNo,
      endByte: rows[rows.length - 1].endByte,
      valid,
      errorLines,
    };
  }

  /**
   * One transaction: the batch's new contacts written (the contacts service's bulk create), then
   * the batch's turn taken on the import row and the rest written, the counters and checkpoint
   * moved. The turn: the row locked and checked (still ours, still processing, checkpoint right
   * before the batch). The lock orders the batch after the one before it, which holds the row
   * until it commits; so this batch asks for it only once that batch has it (`previous.turn`),
   * even when its own new contacts were written first. Should that batch not have committed when
   * the lock is granted (its transaction rolled back to run again, or failed), the turn is not
   * this batch's yet: it rolls back, holding nothing that batch could wait for, waits for that
   * batch's outcome and runs again, or stops. A batch that meets a concurrent write of one of its
   * emails (the unique index: another writer created that contact between the lookup and the
   * insert) is retried whole, and its lookup then finds that contact.
   */
  private async commit(
    imp: ContactImport,
    lease: string,
    listId: string | null,
    p: Prepared,
    errorsPath: string,
    errorsLength: number,
    previous: Started | null,
    onTurn: () => void,
  ): Promise<void> {
    const orgId = imp.organizationId;
    const rows = p.valid.map((r) => r.contact);
    for (let attempt = 1; ;) {
      const waitingFor = previous;
      try {
        const committed = await inTransactionIf(this.ds, async (em) => {
          await this.imports.beginBatch(em, p.seq);
          const write = rows.length
            ? await this.contacts.begin(em, orgId, rows, {
                duplicates: imp.duplicateHandling,
                tags: imp.tags,
                listIds: listId ? [listId] : [],
                events: false,
                missingList: () => new ImportFailure(LIST_DELETED),
              })
            : null;
          if (waitingFor) await waitAtMost(waitingFor.turn, TURN_WAIT_MS);
          if ((await this.takeTurn(em, imp, lease, p.firstRow, waitingFor)) === 'not yet')
            return false;
          onTurn();
          await write?.finish();
          const total = p.lastRow - p.firstRow + 1;
          await this.imports.recordBatch(
            orgId,
            imp.id,
            {
              rows: total,
              success: p.valid.length,
              errors: total - p.valid.length,
              created: write?.newCount ?? 0,
              duplicates: write?.duplicateCount ?? 0,
              checkpointRow: p.lastRow,
              checkpointByte: p.endByte,
              errorsFilePath: errorsPath,
              errorsFileBytes: errorsLength,
            },
            em,
          );
          return true;
        });
        if (committed) return;
        // Rolled back: the batch before this one runs again (or failed); its outcome decides.
        if (await waitingFor?.outcome)
          throw new ImportStopped('an earlier batch of this run failed');
        previous = null;
      } catch (err) {
        if (emailWrittenMeanwhile(err) && attempt < 3) {
          attempt++;
          continue;
        }
        throw err;
      }
    }
  }

  /**
   * Locks the import row for the rest of the transaction (the batch before, while it runs, holds
   * it until it commits) and checks it. `not yet`: the checkpoint is short of this batch and
   * the batch before, not yet committed, will move it. Any other state stops the run.
   */
  private async takeTurn(
    em: EntityManager,
    imp: ContactImport,
    lease: string,
    firstRow: number,
    waitingFor: Started | null,
  ): Promise<'go' | 'not yet'> {
    const row = await this.imports.lockForBatch(imp.organizationId, imp.id, em);
    if (!row) throw new ImportStopped('the import was deleted');
    if (row.status !== 'processing') throw new ImportStopped(`the import is ${row.status}`);
    if (row.lease_token !== lease) throw new ImportStopped('another worker took the import');
    if (row.checkpoint_row === firstRow - 1) return 'go';
    if (waitingFor) return 'not yet';
    throw new ImportStopped('the checkpoint moved under this run');
  }
}

/** A batch's outcome: null once committed, else its error. */
type Outcome = Promise<unknown>;

/** A batch started: its outcome, and `turn`, which resolves once it has its turn or has ended. */
interface Started {
  outcome: Outcome;
  turn: Promise<void>;
}

/** Resolves once `p` has settled or `ms` have passed, whichever comes first. */
async function waitAtMost(p: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([p, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

function settled(p: Promise<void>): Outcome {
  return p.then(
    () => null,
    (err: unknown) => err ?? new Error('batch failed'),
  );
}
