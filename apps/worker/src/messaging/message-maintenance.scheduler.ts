// Timers, not queue jobs: the sweeper must keep running after Redis lost every job, and so must
// the daily retention purge. Each runs on one replica per period; each first runs one interval
// after the start.
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, MessageMaintenanceService, PeriodicTask } from '@app/domain';
import type { AppConfig } from '@app/domain';

/** Re-queues messages whose job was lost. */
@Injectable()
export class MessageSweepScheduler extends PeriodicTask {
  protected readonly scope = 'cluster';

  constructor(
    private readonly maintenance: MessageMaintenanceService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    super();
  }

  protected intervalMs(): number {
    return this.config.emailSweepIntervalMs;
  }

  protected run(): Promise<unknown> {
    return this.maintenance.sweep(this.config.emailSweepGraceMs);
  }
}

/** Deletes messages past their organization's retention. */
@Injectable()
export class MessageRetentionScheduler extends PeriodicTask {
  protected readonly scope = 'cluster';

  constructor(
    private readonly maintenance: MessageMaintenanceService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    super();
  }

  protected intervalMs(): number {
    return this.config.messageRetentionIntervalMs;
  }

  protected run(): Promise<unknown> {
    return this.maintenance.purgeExpired();
  }
}
