// Timers, not queue jobs: the sweeper must keep running after Redis lost every job, and so must
// the daily retention purge. Both are safe on N replicas (rows are claimed with SKIP LOCKED).
import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import { APP_CONFIG, MessageMaintenanceService } from '@app/domain';
import type { AppConfig } from '@app/domain';

@Injectable()
export class MessageMaintenanceScheduler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(MessageMaintenanceScheduler.name);
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly running = new Set<string>();

  constructor(
    private readonly maintenance: MessageMaintenanceService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.every('sweep', this.config.emailSweepIntervalMs, () =>
      this.maintenance.sweep(this.config.emailSweepGraceMs),
    );
    this.every('retention', this.config.messageRetentionIntervalMs, () =>
      this.maintenance.purgeExpired(),
    );
  }

  /** Runs `task` every `ms` (first run after one interval); never two runs of a task at once. */
  private every(name: string, ms: number, task: () => Promise<unknown>): void {
    const timer = setInterval(() => {
      if (this.running.has(name)) return;
      this.running.add(name);
      task()
        .catch((err: Error) =>
          this.logger.warn({ msg: `message ${name} failed`, err: err.message }),
        )
        .finally(() => this.running.delete(name));
    }, ms);
    timer.unref();
    this.timers.push(timer);
  }

  onApplicationShutdown(): void {
    for (const t of this.timers) clearInterval(t);
  }
}
