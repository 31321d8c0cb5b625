// Bull processor of QUEUES.imports: the job carries the import id only; the runner does the rest.
import { Process, Processor } from '@nestjs/bull';
import { Logger, OnModuleDestroy } from '@nestjs/common';
import { ImportJob, ImportRunner, QUEUES } from '@app/domain';
import type { Job } from 'bull';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

@Processor(QUEUES.imports)
export class ImportsProcessor implements OnModuleDestroy {
  private readonly logger = new Logger(ImportsProcessor.name);

  constructor(private readonly runner: ImportRunner) {}

  /** Runs before Bull closes its queues (which waits for the active job): stop at a batch edge. */
  onModuleDestroy(): void {
    this.runner.requestStop();
  }

  // One import at a time per worker: a run keeps a core busy; more workers, more imports.
  @Process({ concurrency: 1 })
  async handle(job: Job<ImportJob>): Promise<void> {
    const importId = job.data?.importId;
    if (typeof importId !== 'string' || !UUID.test(importId)) {
      this.logger.warn({ msg: 'import job without a valid import id discarded', jobId: job.id });
      return;
    }
    await this.runner.run(importId);
  }
}
