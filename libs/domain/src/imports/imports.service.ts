// Contact imports as the API and the CLI see them (§7).
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { constants, createReadStream } from 'node:fs';
import { access } from 'node:fs/promises';
import { basename } from 'node:path';
import type { Readable } from 'node:stream';
import { DataSource } from 'typeorm';
import type { OrgId } from '../common/org-id';
import { Page, PageRequest } from '../common/pagination';
import { uniqueTagNames } from '../contacts/contact-tags.service';
import { inTransaction } from '../database/transaction';
import { ConflictError, NotFoundError, ValidationFailedError } from '../errors/domain-errors';
import {
  ContactImport,
  DuplicateHandling,
  FieldMapping,
  FINISHED_IMPORT_STATUSES,
  ImportStatus,
} from './contact-import.entity';
import { inspectCsv } from './csv-file';
import { ErrorsFile } from './import-errors-file';
import { compileMappings, suggestMappings } from './import-fields';
import { ImportFiles } from './import-files';
import { ImportJobs } from './import-jobs';
import { ImportStorage } from './import-storage';
import { ImportUploads, ReceivedUpload } from './import-uploads';
import { ImportsRepository } from './imports.repository';

export interface UploadedFile extends ReceivedUpload {
  /** The client's file name. */
  originalName: string;
}

export interface ImportPreview {
  headers: string[];
  rows: string[][];
  suggestedMappings: FieldMapping[];
}

export interface StartImportInput {
  fieldMappings: FieldMapping[];
  duplicateHandling?: DuplicateHandling;
  allowPartialUpload?: boolean;
  listName?: string | null;
  tags?: string[];
  consentConfirmed: boolean;
}

export interface ErrorsDownload {
  stream: Readable;
  fileName: string;
  bytes: number;
}

/** A client's file name, kept for display only: no path, no control characters, bounded. */
function displayFileName(name: string): string {
  const clean = basename(name.replace(/\\/g, '/'))
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f]/g, '')
    .trim();
  return (clean || 'import.csv').slice(0, 255);
}

@Injectable()
export class ImportsService {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly repo: ImportsRepository,
    private readonly jobs: ImportJobs,
    private readonly storage: ImportStorage,
    private readonly uploads: ImportUploads,
    private readonly files: ImportFiles,
  ) {}

  /**
   * Turns an uploaded file into an `uploaded` import: checks it is a CSV this service can read
   * (422 on `file` otherwise, and the file is removed) and returns the preview. The upload's quota
   * reservation becomes the import's file size in the same transaction.
   */
  async createFromUpload(
    orgId: OrgId,
    file: UploadedFile,
  ): Promise<{ import: ContactImport; preview: ImportPreview }> {
    const id = randomUUID();
    const key = this.storage.sourcePath(orgId, id);
    try {
      await this.storage.objects.move(file.path, key);
      // Counted, and held under IMPORT_MAX_BYTES, as it was received (ImportUploads.receive).
      const size = file.bytes;
      const preview = await inspectCsv(this.storage.bytes(key), size);
      const saved = await inTransaction(this.ds, async (em) => {
        const row = await this.repo.insert(
          orgId,
          {
            id,
            fileName: displayFileName(file.originalName),
            filePath: key,
            fileSize: size,
            delimiter: preview.delimiter,
            headers: preview.headers,
          },
          em,
        );
        await this.uploads.release(orgId, file.reservationId, em);
        return row;
      });
      return {
        import: saved,
        preview: {
          headers: preview.headers,
          rows: preview.rows,
          suggestedMappings: suggestMappings(preview.headers),
        },
      };
    } catch (err) {
      await this.uploads.discard(orgId, file.path, file.reservationId);
      await this.storage.removeImport(orgId, id);
      throw err;
    }
  }

  /** The CLI's upload: a local file streamed in like an HTTP upload (same quota), then the same path. */
  async createFromLocalFile(orgId: OrgId, path: string) {
    try {
      await access(path, constants.R_OK);
    } catch {
      throw ValidationFailedError.field('file', 'required', `Cannot read the file ${path}`);
    }
    const received = await this.uploads.receive(orgId, createReadStream(path));
    return this.createFromUpload(orgId, { ...received, originalName: basename(path) });
  }

  async get(orgId: OrgId, id: string): Promise<ContactImport> {
    const found = await this.repo.get(orgId, id);
    if (!found) throw new NotFoundError('Import');
    return found;
  }

  /** Newest first; uploaded drafts are not listed (spec). */
  async list(orgId: OrgId, page: PageRequest): Promise<Page<ContactImport>> {
    const [items, total] = await this.repo.page(orgId, page);
    return new Page(items, total, page);
  }

  /** uploaded → queued with the chosen settings; the row is committed before the job is queued. */
  async start(orgId: OrgId, id: string, input: StartImportInput): Promise<ContactImport> {
    if (input.consentConfirmed !== true) {
      throw ValidationFailedError.field(
        'consentConfirmed',
        'required',
        'consentConfirmed must be true: confirm the contacts in this file agreed to be contacted',
      );
    }
    const jobId = `${id}:${Date.now()}`;
    // The answer is the import as committed (`queued`), even if a worker takes it at once.
    const queued = await inTransaction(this.ds, async (em) => {
      const imp = await this.repo.lock(orgId, id, em);
      if (!imp) throw new NotFoundError('Import');
      if (imp.status !== 'uploaded')
        throw new ConflictError(`The import has already been started (status ${imp.status})`);
      compileMappings(input.fieldMappings, imp.headers);
      return this.repo.queue(
        orgId,
        id,
        {
          fieldMappings: input.fieldMappings.map((m) => ({
            csvHeader: m.csvHeader,
            serviceField: m.serviceField,
          })),
          duplicateHandling: input.duplicateHandling ?? 'skip',
          allowPartialUpload: input.allowPartialUpload ?? false,
          listName: input.listName?.trim() || null,
          tags: uniqueTagNames(input.tags ?? []),
          jobId,
        },
        em,
      );
    });
    await this.jobs.enqueue(orgId, id, jobId);
    return queued;
  }

  /**
   * queued or processing → cancelled. The worker notices at its next batch (its transaction sees
   * the status under the row lock) and commits nothing more; batches already committed stay.
   */
  async cancel(orgId: OrgId, id: string): Promise<ContactImport> {
    if (!(await this.repo.cancel(orgId, id))) {
      const imp = await this.get(orgId, id);
      throw new ConflictError(
        `Only a queued or processing import can be cancelled (status ${imp.status})`,
      );
    }
    // The source goes now (§16); a worker still reading it holds it open until its next batch.
    await this.files.settle(orgId, id);
    return this.get(orgId, id);
  }

  /**
   * Removes a draft or a finished import and its files; a running one must be cancelled first.
   * The files go first, under the row's lock: a crash in between leaves a row to delete again,
   * never files no row points to.
   */
  async delete(orgId: OrgId, id: string): Promise<void> {
    const deletable: ImportStatus[] = ['uploaded', ...FINISHED_IMPORT_STATUSES];
    await inTransaction(this.ds, async (em) => {
      const imp = await this.repo.lock(orgId, id, em);
      if (!imp) throw new NotFoundError('Import');
      if (!deletable.includes(imp.status))
        throw new ConflictError(`A ${imp.status} import cannot be deleted; cancel it first`);
      await this.storage.removeImport(orgId, id);
      await this.repo.delete(orgId, id, em);
    });
  }

  /** The committed part of the errors file (a running import's file grows batch by batch). */
  async errorsFile(orgId: OrgId, id: string): Promise<ErrorsDownload> {
    const imp = await this.get(orgId, id);
    if (!imp.errorsFilePath || imp.errorsFileBytes <= 0) throw new NotFoundError('Errors file');
    const stream = await ErrorsFile.read(this.storage, imp.errorsFilePath, imp.errorsFileBytes);
    const base = imp.fileName.replace(/\.csv$/i, '');
    return { stream, fileName: `${base}-errors.csv`, bytes: imp.errorsFileBytes };
  }
}
