// Across organizations: re-enqueues the imports a worker should be running but is not seen running.
import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { asOrgId } from '../common/org-id';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { query, sql } from '../database/sql';
import type { ImportStatus } from './contact-import.entity';
import { ImportJobs } from './import-jobs';
import { ImportsRepository } from './imports.repository';

/** Stale imports looked at per sweep. */
const SWEEP_LIMIT = 100;

/** An import a worker should be running but is not seen running. */
interface StaleImport {
  id: string;
  organization_id: string;
  status: ImportStatus;
  job_id: string | null;
}

@Injectable()
export class ImportsSweeper {
  private readonly logger = new Logger(ImportsSweeper.name);
  private readonly leaseSeconds: number;

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly repo: ImportsRepository,
    private readonly jobs: ImportJobs,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.leaseSeconds = config.imports.leaseSeconds;
  }

  /**
   * Re-enqueues imports a worker should be running but is not: queued ones whose job is gone
   * (Redis flushed) and processing ones whose worker stopped heart-beating (killed). Safe to run
   * from every worker at once: the conditional update lets one of them enqueue, and a second job
   * for the same import only finds the lease held. Answers the ids enqueued.
   */
  async sweep(): Promise<string[]> {
    const enqueued: string[] = [];
    for (const row of await this.stale()) {
      const orgId = asOrgId(row.organization_id);
      if (row.status === 'queued' && row.job_id && (await this.jobs.pending(row.job_id))) {
        // Waiting behind other imports, not lost.
        await this.repo.touchEnqueued(orgId, row.id);
        continue;
      }
      const jobId = `${row.id}:${Date.now()}`;
      if (!(await this.repo.requeue(orgId, row.id, jobId, this.leaseSeconds))) continue;
      this.logger.log({ msg: 'import re-enqueued', importId: row.id, status: row.status });
      await this.jobs.enqueue(orgId, row.id, jobId);
      enqueued.push(row.id);
    }
    return enqueued;
  }

  /** Queued or processing imports whose heartbeat and enqueueing are both stale, oldest first. */
  private stale(): Promise<StaleImport[]> {
    const seconds = this.leaseSeconds;
    return query(
      this.ds,
      sql`SELECT id, organization_id, status, job_id FROM contact_imports
           WHERE status IN ('queued', 'processing')
             AND (heartbeat_at IS NULL OR heartbeat_at < now() - make_interval(secs => ${seconds}))
             AND (enqueued_at IS NULL OR enqueued_at < now() - make_interval(secs => ${seconds}))
           ORDER BY created_at LIMIT ${SWEEP_LIMIT}`,
    );
  }
}
