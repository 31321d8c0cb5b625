// The imports queue: one job per run of an import, carrying its id and its organization's.
import { InjectQueue } from '@nestjs/bull';
import { Injectable, Logger } from '@nestjs/common';
import type { Queue } from 'bull';
import type { OrgId } from '../common/org-id';
import { JOBS, QUEUES, RunImportJob } from '../queues/jobs';

@Injectable()
export class ImportJobs {
  private readonly logger = new Logger(ImportJobs.name);

  constructor(@InjectQueue(QUEUES.imports) private readonly queue: Queue<RunImportJob>) {}

  /**
   * Adds the run's job under `jobId`. A queue that refuses it is only logged: the import's row is
   * committed first, and the sweeper enqueues it again.
   */
  async enqueue(orgId: OrgId, importId: string, jobId: string): Promise<void> {
    try {
      await this.queue.add(
        JOBS.runImport.name,
        { importId, organizationId: orgId },
        { jobId, attempts: 1, removeOnComplete: true, removeOnFail: 100 },
      );
    } catch (err) {
      this.logger.warn({ msg: 'import enqueue failed', importId, err: (err as Error).message });
    }
  }

  /** Whether the job still waits in the queue (waiting, delayed or paused); false if unknown. */
  async pending(jobId: string): Promise<boolean> {
    try {
      const job = await this.queue.getJob(jobId);
      if (!job) return false;
      const state = await job.getState();
      return state === 'waiting' || state === 'delayed' || state === 'paused';
    } catch {
      return false;
    }
  }
}
