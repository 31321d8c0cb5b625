// The sweeper's re-enqueue over a fake repository and queue: a queued import whose job still waits
// is left queued, a lost one is enqueued again under its own organization.
import { Logger } from '@nestjs/common';
import type { Queue } from 'bull';
import type { DataSource } from 'typeorm';
import { asOrgId } from '../common/org-id';
import type { AppConfig } from '../config/app-config';
import type { RunImportJob } from '../queues/jobs';
import { ImportJobs } from './import-jobs';
import type { ImportsRepository } from './imports.repository';
import { ImportsSweeper } from './imports.sweeper';

const ORG = asOrgId('00000000-0000-4000-8000-000000000001');
const OTHER = asOrgId('00000000-0000-4000-8000-000000000002');

function setup(stale: Record<string, unknown>[]) {
  const ds = { query: jest.fn(async (_text: string, _values: unknown[]) => stale) };
  const repo = {
    touchEnqueued: jest.fn(async () => undefined),
    requeue: jest.fn(async () => true),
  };
  const queue = {
    add: jest.fn(async () => undefined),
    getJob: jest.fn(async (jobId: string): Promise<unknown> =>
      jobId === 'job-w' ? { getState: async () => 'waiting' } : null,
    ),
  };
  const sweeper = new ImportsSweeper(
    ds as unknown as DataSource,
    repo as unknown as ImportsRepository,
    new ImportJobs(queue as unknown as Queue<RunImportJob>),
    { imports: { leaseSeconds: 30 } } as AppConfig,
  );
  return { sweeper, ds, repo, queue };
}

// The sweeper logs each re-enqueue; the assertions here cover them.
beforeAll(() => Logger.overrideLogger(false));

describe('ImportsSweeper', () => {
  it('leaves a queued import whose job still waits, and enqueues a lost one again', async () => {
    const s = setup([
      { id: 'waiting', organization_id: ORG, status: 'queued', job_id: 'job-w' },
      { id: 'lost', organization_id: OTHER, status: 'processing', job_id: 'job-l' },
    ]);
    expect(await s.sweeper.sweep()).toEqual(['lost']);
    // One statement finds the stale imports, their age measured against the lease.
    expect(s.ds.query).toHaveBeenCalledTimes(1);
    expect(s.ds.query.mock.calls[0][1]).toEqual(expect.arrayContaining([30]));
    expect(s.repo.touchEnqueued).toHaveBeenCalledWith(ORG, 'waiting');
    expect(s.repo.requeue).toHaveBeenCalledTimes(1);
    expect(s.repo.requeue.mock.calls[0]).toEqual([OTHER, 'lost', expect.any(String), 30]);
    expect(s.queue.add).toHaveBeenCalledTimes(1);
    const [, data, opts] = s.queue.add.mock.calls[0] as unknown as [
      string,
      RunImportJob,
      { jobId: string },
    ];
    expect(data).toEqual({ importId: 'lost', organizationId: OTHER });
    expect(opts.jobId).toBe((s.repo.requeue.mock.calls[0] as unknown[])[2]);
  });

  it('enqueues nothing when another sweeper requeued the import first', async () => {
    const s = setup([{ id: 'lost', organization_id: ORG, status: 'queued', job_id: null }]);
    s.repo.requeue.mockResolvedValueOnce(false);
    expect(await s.sweeper.sweep()).toEqual([]);
    expect(s.queue.add).not.toHaveBeenCalled();
  });
});
