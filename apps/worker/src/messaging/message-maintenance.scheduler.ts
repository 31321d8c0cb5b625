// Timers, not queue jobs: the sweeper must keep running after Redis lost every job, and so must
// the daily retention purge. Both are safe on N replicas (rows are claimed with SKIP LOCKED).
import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import { APP_CONFIG, MessageMaintenanceService, Periodic } from '@app/domain';
import type { AppConfig } from '@app/domain';

@Injectable()
export class MessageMaintenanceScheduler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(MessageMaintenanceScheduler.name);
  private readonly sweep = new Periodic('message sweep', this.logger, () =>
    this.maintenance.sweep(this.config.emailSweepGraceMs),
  );
  private readonly retention = new Periodic('message retention', this.logger, () =>
    this.maintenance.purgeExpired(),
  );

  constructor(
    private readonly maintenance: MessageMaintenanceService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Each task first runs one interval after the start. */
  onApplicationBootstrap(): void {
    this.sweep.start(this.config.emailSweepIntervalMs);
    this.retention.start(this.config.messageRetentionIntervalMs);
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([this.sweep.stop(), this.retention.stop()]);
  }
}
