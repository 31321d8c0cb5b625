// Every IMPORT_SWEEP_SECONDS: re-enqueues imports whose job was lost or whose worker died
// (heartbeat older than IMPORT_LEASE_SECONDS), so a killed worker's import resumes elsewhere.
import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnModuleDestroy,
} from '@nestjs/common';
import { APP_CONFIG, ImportsService } from '@app/domain';
import type { AppConfig } from '@app/domain';

@Injectable()
export class ImportsSweeper implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(ImportsSweeper.name);
  private timer?: NodeJS.Timeout;
  private running = false;

  constructor(
    private readonly imports: ImportsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    void this.sweep();
    this.timer = setInterval(() => void this.sweep(), this.config.imports.sweepSeconds * 1000);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    if (this.timer) clearInterval(this.timer);
  }

  async sweep(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      await this.imports.sweep();
    } catch (err) {
      this.logger.warn({ msg: 'import sweep failed', err: (err as Error).message });
    } finally {
      this.running = false;
    }
  }
}
