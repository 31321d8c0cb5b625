// The imports service's rules with fake repositories: start (consent, state, defaults, the job
// queued after the commit), cancel, delete, reads.
import { Logger } from '@nestjs/common';
import type { Queue } from 'bull';
import type { DataSource, EntityManager } from 'typeorm';
import { asOrgId } from '../common/org-id';
import { ConflictError, NotFoundError, ValidationFailedError } from '../errors/domain-errors';
import type { RunImportJob } from '../queues/jobs';
import type { ContactImport, ImportStatus } from './contact-import.entity';
import type { ImportFiles } from './import-files';
import { ImportJobs } from './import-jobs';
import type { ImportStorage } from './import-storage';
import type { ImportUploads } from './import-uploads';
import type { ImportsRepository } from './imports.repository';
import { ImportsService, StartImportInput } from './imports.service';

const ORG = asOrgId('00000000-0000-4000-8000-000000000001');
const ID = '00000000-0000-4000-8000-0000000000a1';
const em = { fake: 'em' } as unknown as EntityManager;

function setup(status: ImportStatus | null = 'uploaded', opts: { queueDown?: boolean } = {}) {
  const log: string[] = [];
  const imp = (s: ImportStatus) =>
    ({ id: ID, organizationId: ORG, status: s, headers: ['email', 'name'] }) as ContactImport;
  const repo = {
    lock: jest.fn(async () => (status ? imp(status) : null)),
    get: jest.fn(async () => (status ? imp(status) : null)),
    queue: jest.fn(async () => imp('queued')),
    cancel: jest.fn(async () => status === 'queued' || status === 'processing'),
    delete: jest.fn(async () => {
      log.push('delete row');
    }),
  };
  const queue = {
    add: jest.fn(async () => {
      log.push('enqueue');
      if (opts.queueDown) throw new Error('redis is down');
    }),
  };
  const storage = {
    removeImport: jest.fn(async () => {
      log.push('remove files');
    }),
  };
  const files = { settle: jest.fn(async () => undefined) };
  const ds = {
    transaction: async (work: (em: EntityManager) => Promise<unknown>) => {
      const result = await work(em);
      log.push('commit');
      return result;
    },
  } as unknown as DataSource;
  const service = new ImportsService(
    ds,
    repo as unknown as ImportsRepository,
    new ImportJobs(queue as unknown as Queue<RunImportJob>),
    storage as unknown as ImportStorage,
    {} as ImportUploads,
    files as unknown as ImportFiles,
  );
  return { service, repo, queue, storage, files, log };
}

const START: StartImportInput = {
  fieldMappings: [{ csvHeader: 'email', serviceField: 'email' }],
  consentConfirmed: true,
};

// The service logs a failed enqueue; the assertions here cover it.
beforeAll(() => Logger.overrideLogger(false));

describe('ImportsService', () => {
  describe('start', () => {
    it('without consent: 422 on consentConfirmed, nothing locked', async () => {
      const s = setup();
      const err = await s.service
        .start(ORG, ID, { ...START, consentConfirmed: false })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ValidationFailedError);
      expect((err as ValidationFailedError).errors[0]).toMatchObject({
        field: 'consentConfirmed',
        rule: 'required',
      });
      expect(s.repo.lock).not.toHaveBeenCalled();
    });

    it("404 for an import that is not the organization's; 409 naming the status once started", async () => {
      await expect(setup(null).service.start(ORG, ID, START)).rejects.toThrow(NotFoundError);
      const s = setup('processing');
      const err = await s.service.start(ORG, ID, START).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ConflictError);
      expect((err as Error).message).toContain('processing');
      expect(s.queue.add).not.toHaveBeenCalled();
    });

    it('a mapping naming a column the file lacks: 422 on that mapping, nothing queued', async () => {
      const s = setup();
      const err = await s.service
        .start(ORG, ID, { ...START, fieldMappings: [{ csvHeader: 'mail', serviceField: 'email' }] })
        .catch((e: unknown) => e);
      expect((err as ValidationFailedError).errors[0].field).toBe('fieldMappings.0.csvHeader');
      expect(s.repo.queue).not.toHaveBeenCalled();
    });

    it('queues with the defaults (skip, no partial upload, no list), the list name trimmed and tags unique, and enqueues the job after the commit', async () => {
      const s = setup();
      const answer = await s.service.start(ORG, ID, {
        fieldMappings: [
          { csvHeader: 'email', serviceField: 'email', extra: 1 } as never,
          { csvHeader: 'name', serviceField: 'firstName' },
        ],
        consentConfirmed: true,
        listName: '  ',
        tags: [' VIP', 'vip', 'new '],
      });
      expect(answer.status).toBe('queued');
      const [org, id, settings, tx] = s.repo.queue.mock.calls[0] as unknown as [
        string,
        string,
        Record<string, unknown>,
        EntityManager,
      ];
      expect([org, id, tx]).toEqual([ORG, ID, em]);
      expect(settings).toMatchObject({
        fieldMappings: [
          { csvHeader: 'email', serviceField: 'email' },
          { csvHeader: 'name', serviceField: 'firstName' },
        ],
        duplicateHandling: 'skip',
        allowPartialUpload: false,
        listName: null,
        tags: ['VIP', 'new'],
      });
      expect(s.log).toEqual(['commit', 'enqueue']);
      const [, data, jobOpts] = s.queue.add.mock.calls[0] as unknown as [
        string,
        RunImportJob,
        { jobId: string },
      ];
      expect(data).toEqual({ importId: ID, organizationId: ORG });
      expect(jobOpts.jobId).toBe(settings.jobId);
    });

    it('answers the queued import when the queue is down (the sweeper enqueues it later)', async () => {
      const s = setup('uploaded', { queueDown: true });
      await expect(
        s.service.start(ORG, ID, { ...START, listName: ' List ' }),
      ).resolves.toMatchObject({ status: 'queued' });
      expect((s.repo.queue.mock.calls[0] as unknown[])[2]).toMatchObject({ listName: 'List' });
    });
  });

  describe('cancel', () => {
    it('a queued or processing import: cancelled, its files settled, the import answered', async () => {
      const s = setup('processing');
      await s.service.cancel(ORG, ID);
      expect(s.repo.cancel).toHaveBeenCalledWith(ORG, ID);
      expect(s.files.settle).toHaveBeenCalledWith(ORG, ID);
    });

    it('any other: 409 naming its status; a missing one: 404', async () => {
      const s = setup('completed');
      await expect(s.service.cancel(ORG, ID)).rejects.toThrow('(status completed)');
      expect(s.files.settle).not.toHaveBeenCalled();
      await expect(setup(null).service.cancel(ORG, ID)).rejects.toThrow(NotFoundError);
    });
  });

  describe('delete', () => {
    it('a draft or finished import: its files first, then its row, under the lock', async () => {
      for (const status of ['uploaded', 'failed', 'completed_with_errors'] as const) {
        const s = setup(status);
        await s.service.delete(ORG, ID);
        expect(s.log).toEqual(['remove files', 'delete row', 'commit']);
        expect(s.repo.delete).toHaveBeenCalledWith(ORG, ID, em);
      }
    });

    it('a running one: 409, nothing removed; a missing one: 404', async () => {
      const s = setup('queued');
      await expect(s.service.delete(ORG, ID)).rejects.toThrow(ConflictError);
      expect(s.storage.removeImport).not.toHaveBeenCalled();
      await expect(setup(null).service.delete(ORG, ID)).rejects.toThrow(NotFoundError);
    });
  });

  it('get: 404 for a missing import; errors file: 404 when the import has none', async () => {
    await expect(setup(null).service.get(ORG, ID)).rejects.toThrow('Import not found');
    await expect(setup('completed').service.errorsFile(ORG, ID)).rejects.toThrow(
      'Errors file not found',
    );
  });
});
