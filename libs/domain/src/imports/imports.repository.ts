// SQL of the contact_imports table: settings, a run's lease and heartbeat, counters and checkpoint.
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { OrgId } from '../common/org-id';
import { PageRequest, pageOffset } from '../common/pagination';
import { toEntities } from '../database/entity-rows';
import { query, sql, Sql } from '../database/sql';
import {
  ContactImport,
  DuplicateHandling,
  FieldMapping,
  ImportStatus,
} from './contact-import.entity';

type Db = DataSource | EntityManager;

export interface NewImport {
  id: string;
  fileName: string;
  filePath: string;
  fileSize: number;
  delimiter: ',' | ';';
  headers: string[];
}

export interface ImportSettings {
  fieldMappings: FieldMapping[];
  duplicateHandling: DuplicateHandling;
  allowPartialUpload: boolean;
  listName: string | null;
  tags: string[];
  jobId: string;
}

/** What one committed batch adds to the import's counters, and where it leaves the checkpoint. */
export interface BatchProgress {
  rows: number;
  success: number;
  errors: number;
  created: number;
  duplicates: number;
  checkpointRow: number;
  checkpointByte: number;
  errorsFilePath: string;
  errorsFileBytes: number;
}

@Injectable()
export class ImportsRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  private async imports(db: Db, q: Sql): Promise<ContactImport[]> {
    return toEntities<ContactImport>(this.ds, ContactImport, await query(db, q));
  }

  /** Whether an UPDATE ... RETURNING found its row. */
  private async changed(q: Sql, db: Db = this.ds): Promise<boolean> {
    return (await query(db, q)).length > 0;
  }

  /** Inserts an `uploaded` import (settings and counters at their defaults). */
  async insert(orgId: OrgId, i: NewImport, em: EntityManager): Promise<ContactImport> {
    const [row] = await this.imports(
      em,
      sql`INSERT INTO contact_imports
                 (id, organization_id, file_name, file_path, file_size, delimiter, headers, status)
          VALUES (${i.id}::uuid, ${orgId}::uuid, ${i.fileName}, ${i.filePath}, ${i.fileSize},
                  ${i.delimiter}, ${i.headers}::text[], 'uploaded')
          RETURNING *`,
    );
    return row;
  }

  async get(orgId: OrgId, id: string, db: Db = this.ds): Promise<ContactImport | null> {
    const [row] = await this.imports(
      db,
      sql`SELECT * FROM contact_imports
           WHERE organization_id = ${orgId}::uuid AND id = ${id}::uuid`,
    );
    return row ?? null;
  }

  /** A page of the organization's started imports (drafts are not listed), newest first. */
  async page(orgId: OrgId, page: PageRequest): Promise<[ContactImport[], number]> {
    const [items, [{ total }]] = await Promise.all([
      this.imports(
        this.ds,
        sql`SELECT * FROM contact_imports
             WHERE organization_id = ${orgId}::uuid AND status <> 'uploaded'
             ORDER BY created_at DESC, id DESC LIMIT ${page.limit} OFFSET ${pageOffset(page)}`,
      ),
      query<{ total: string }>(
        this.ds,
        sql`SELECT count(*) AS total FROM contact_imports
             WHERE organization_id = ${orgId}::uuid AND status <> 'uploaded'`,
      ),
    ]);
    return [items, Number(total)];
  }

  /** The import, locked for the rest of the transaction. */
  async lock(orgId: OrgId, id: string, em: EntityManager): Promise<ContactImport | null> {
    const [row] = await this.imports(
      em,
      sql`SELECT * FROM contact_imports
           WHERE organization_id = ${orgId}::uuid AND id = ${id}::uuid FOR UPDATE`,
    );
    return row ?? null;
  }

  /** uploaded → queued with the chosen settings. */
  async queue(
    orgId: OrgId,
    id: string,
    s: ImportSettings,
    em: EntityManager,
  ): Promise<ContactImport> {
    const [row] = await this.imports(
      em,
      sql`UPDATE contact_imports
             SET status = 'queued', field_mappings = ${JSON.stringify(s.fieldMappings)}::jsonb,
                 duplicate_handling = ${s.duplicateHandling},
                 allow_partial_upload = ${s.allowPartialUpload}, list_name = ${s.listName},
                 tags = ${s.tags}::text[], consent_confirmed = true, job_id = ${s.jobId},
                 enqueued_at = now(), updated_at = now()
           WHERE organization_id = ${orgId}::uuid AND id = ${id}::uuid
          RETURNING *`,
    );
    return row;
  }

  /** queued or processing → cancelled; answers whether it was one of those. */
  cancel(orgId: OrgId, id: string): Promise<boolean> {
    return this.changed(
      sql`UPDATE contact_imports
             SET status = 'cancelled', cancel_requested_at = now(), completed_at = now(),
                 lease_token = NULL, updated_at = now()
           WHERE organization_id = ${orgId}::uuid AND id = ${id}::uuid
             AND status IN ('queued', 'processing')
          RETURNING id`,
    );
  }

  async delete(orgId: OrgId, id: string, em: EntityManager): Promise<void> {
    await query(
      em,
      sql`DELETE FROM contact_imports WHERE organization_id = ${orgId}::uuid AND id = ${id}::uuid`,
    );
  }

  /** The import's job is still waiting in the queue: seen now. */
  async touchEnqueued(orgId: OrgId, id: string): Promise<void> {
    await query(
      this.ds,
      sql`UPDATE contact_imports SET enqueued_at = now()
           WHERE organization_id = ${orgId}::uuid AND id = ${id}::uuid`,
    );
  }

  /**
   * Gives a stale import a new job id, unless another sweeper did within `seconds`; answers
   * whether this call did (and must enqueue it).
   */
  requeue(orgId: OrgId, id: string, jobId: string, seconds: number): Promise<boolean> {
    return this.changed(
      sql`UPDATE contact_imports SET job_id = ${jobId}, enqueued_at = now()
           WHERE organization_id = ${orgId}::uuid AND id = ${id}::uuid
             AND status IN ('queued', 'processing')
             AND (enqueued_at IS NULL OR enqueued_at < now() - make_interval(secs => ${seconds}))
          RETURNING id`,
    );
  }

  /**
   * Takes a queued or processing import for a run under `lease`, unless a live run holds it (a
   * heartbeat within `seconds`).
   */
  async claim(
    orgId: OrgId,
    id: string,
    lease: string,
    seconds: number,
  ): Promise<ContactImport | null> {
    const [row] = await this.imports(
      this.ds,
      sql`UPDATE contact_imports
             SET status = 'processing', lease_token = ${lease}::uuid, heartbeat_at = now(),
                 attempts = attempts + 1, started_at = coalesce(started_at, now()),
                 updated_at = now()
           WHERE organization_id = ${orgId}::uuid AND id = ${id}::uuid
             AND status IN ('queued', 'processing')
             AND (lease_token IS NULL OR heartbeat_at IS NULL
                  OR heartbeat_at < now() - make_interval(secs => ${seconds}))
          RETURNING *`,
    );
    return row ?? null;
  }

  /** The run's heartbeat; answers whether the run still holds the import. */
  heartbeat(orgId: OrgId, id: string, lease: string): Promise<boolean> {
    return this.changed(
      sql`UPDATE contact_imports SET heartbeat_at = now()
           WHERE organization_id = ${orgId}::uuid AND id = ${id}::uuid
             AND lease_token = ${lease}::uuid
          RETURNING id`,
    );
  }

  /**
   * Gives the lease up, so the next sweep enqueues the import again. A run cut short by a store's
   * outage gives its attempt back (`attemptCounts` false): only runs that failed on their own
   * count toward the import's limit of attempts.
   */
  async release(orgId: OrgId, id: string, lease: string, attemptCounts = true): Promise<void> {
    await query(
      this.ds,
      sql`UPDATE contact_imports SET lease_token = NULL, heartbeat_at = NULL, enqueued_at = NULL,
                 attempts = attempts - ${attemptCounts ? 0 : 1}
           WHERE organization_id = ${orgId}::uuid AND id = ${id}::uuid
             AND lease_token = ${lease}::uuid`,
    );
  }

  /** Sets fields of an import the run still holds and that is still processing. */
  private whileRunning(orgId: OrgId, id: string, lease: string, set: Sql): Promise<boolean> {
    return this.changed(
      sql`UPDATE contact_imports SET ${set}, updated_at = now()
           WHERE organization_id = ${orgId}::uuid AND id = ${id}::uuid
             AND lease_token = ${lease}::uuid AND status = 'processing'
          RETURNING id`,
    );
  }

  /** The running count of the first read; answers whether the run still holds the import. */
  counting(orgId: OrgId, id: string, lease: string, rows: number): Promise<boolean> {
    return this.whileRunning(orgId, id, lease, sql`total_rows = ${rows}, heartbeat_at = now()`);
  }

  /** The first read is done: `rows` data rows. */
  counted(orgId: OrgId, id: string, lease: string, rows: number): Promise<boolean> {
    return this.whileRunning(
      orgId,
      id,
      lease,
      sql`total_rows = ${rows}, scanned = true, heartbeat_at = now()`,
    );
  }

  /** The first read found invalid rows with partial uploads off: failed, nothing written. */
  failedCount(
    orgId: OrgId,
    id: string,
    lease: string,
    r: { rows: number; invalid: number; errorsPath: string; errorsBytes: number; reason: string },
  ): Promise<boolean> {
    return this.whileRunning(
      orgId,
      id,
      lease,
      sql`status = 'failed', total_rows = ${r.rows}, processed_rows = ${r.invalid},
          error_count = ${r.invalid}, errors_file_path = ${r.errorsPath},
          errors_file_bytes = ${r.errorsBytes}, error_reason = ${r.reason}, scanned = true,
          completed_at = now(), lease_token = NULL, heartbeat_at = NULL`,
    );
  }

  /** The list the run writes memberships to. */
  setList(orgId: OrgId, id: string, lease: string, listId: string): Promise<boolean> {
    return this.whileRunning(orgId, id, lease, sql`list_id = ${listId}::uuid`);
  }

  /**
   * Sets up a batch's transaction (its first statement). Its statements (and the triggers they
   * fire) are estimated costly enough for JIT, whose compilation (0.5 s and more per statement) a
   * few thousand rows never repay. Its contact counters go to slot `seq` modulo 16 (the contacts
   * baseline), so two consecutive batches, which run side by side, never wait on each other's
   * counter rows.
   */
  async beginBatch(em: EntityManager, seq: number): Promise<void> {
    await query(
      em,
      sql`SELECT set_config('jit', 'off', true),
                 set_config('contacts.counter_slot', ${String(seq)}, true)`,
    );
  }

  /**
   * Locks the import row for the rest of a batch's transaction (the batch before it, if still
   * running, holds it until it commits); answers what the batch checks before it goes on.
   */
  async lockForBatch(
    orgId: OrgId,
    id: string,
    em: EntityManager,
  ): Promise<{ status: ImportStatus; lease_token: string | null; checkpoint_row: number } | null> {
    const [row] = await query<{
      status: ImportStatus;
      lease_token: string | null;
      checkpoint_row: number;
    }>(
      em,
      sql`SELECT status, lease_token, checkpoint_row FROM contact_imports
           WHERE organization_id = ${orgId}::uuid AND id = ${id}::uuid FOR UPDATE`,
    );
    return row ?? null;
  }

  /** Moves the counters and the checkpoint by one batch, in the batch's transaction. */
  async recordBatch(orgId: OrgId, id: string, b: BatchProgress, em: EntityManager) {
    await query(
      em,
      sql`UPDATE contact_imports
             SET processed_rows = processed_rows + ${b.rows},
                 success_count = success_count + ${b.success},
                 error_count = error_count + ${b.errors},
                 new_count = new_count + ${b.created},
                 duplicate_count = duplicate_count + ${b.duplicates},
                 checkpoint_row = ${b.checkpointRow}, checkpoint_byte = ${b.checkpointByte},
                 errors_file_bytes = ${b.errorsFileBytes},
                 errors_file_path = CASE WHEN error_count + ${b.errors} > 0
                                         THEN ${b.errorsFilePath} ELSE errors_file_path END,
                 heartbeat_at = now(), updated_at = now()
           WHERE organization_id = ${orgId}::uuid AND id = ${id}::uuid`,
    );
  }

  /**
   * The end of a run: completed, with errors or not, the errors file at `errorsPath` (its parts
   * compacted); answers the status, null if not held.
   */
  async finish(
    orgId: OrgId,
    id: string,
    lease: string,
    errorsPath: string | null,
  ): Promise<ImportStatus | null> {
    const [row] = await query<{ status: ImportStatus }>(
      this.ds,
      sql`UPDATE contact_imports
             SET status = CASE WHEN error_count > 0 THEN 'completed_with_errors'
                               ELSE 'completed' END,
                 errors_file_path = CASE WHEN error_count > 0
                                         THEN coalesce(${errorsPath}::text, errors_file_path) END,
                 errors_file_bytes = CASE WHEN error_count > 0 THEN errors_file_bytes ELSE 0 END,
                 completed_at = now(), lease_token = NULL, heartbeat_at = NULL, updated_at = now()
           WHERE organization_id = ${orgId}::uuid AND id = ${id}::uuid
             AND lease_token = ${lease}::uuid AND status = 'processing'
          RETURNING status`,
    );
    return row?.status ?? null;
  }

  /** The import cannot succeed: failed with `reason`; answers whether the run still held it. */
  fail(orgId: OrgId, id: string, lease: string, reason: string): Promise<boolean> {
    return this.whileRunning(
      orgId,
      id,
      lease,
      sql`status = 'failed', error_reason = ${reason}, completed_at = now(), lease_token = NULL,
          heartbeat_at = NULL`,
    );
  }
}
