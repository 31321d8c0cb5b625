// Bull processor of the import jobs: the job carries the import's id and its organization's; the
// runner does the rest.
import { Process, Processor } from '@nestjs/bull';
import { Logger, OnModuleDestroy } from '@nestjs/common';
import { ImportRunner, JOBS, QUEUES } from '@app/domain';
import type { Job } from 'bull';

@Processor(QUEUES.imports)
export class ImportsProcessor implements OnModuleDestroy {
  private readonly logger = new Logger(ImportsProcessor.name);

  constructor(private readonly runner: ImportRunner) {}

  /** Runs before Bull closes its queues (which waits for the active job): stop at a batch edge. */
  onModuleDestroy(): void {
    this.runner.requestStop();
  }

  // One import at a time per worker: a run keeps a core busy; more workers, more imports.
  @Process({ name: JOBS.runImport.name, concurrency: 1 })
  async handle(job: Job): Promise<void> {
    const payload = JOBS.runImport.parse(job.data);
    if (!payload) {
      this.logger.warn({ msg: 'import job without valid ids discarded', jobId: job.id });
      return;
    }
    await this.runner.run(payload.organizationId, payload.importId);
  }
}
