// Every IMPORT_SWEEP_SECONDS: re-enqueues imports whose job was lost or whose worker died
// (heartbeat older than IMPORT_LEASE_SECONDS), so a killed worker's import resumes elsewhere.
import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import { APP_CONFIG, ImportsService } from '@app/domain';
import type { AppConfig } from '@app/domain';
import { Periodic } from '../periodic';

@Injectable()
export class ImportsSweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly periodic = new Periodic('import sweep', new Logger(ImportsSweeper.name), () =>
    this.imports.sweep(),
  );

  constructor(
    private readonly imports: ImportsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.periodic.start(this.config.imports.sweepSeconds * 1000, { now: true });
  }

  onApplicationShutdown(): Promise<void> {
    return this.periodic.stop();
  }
}
