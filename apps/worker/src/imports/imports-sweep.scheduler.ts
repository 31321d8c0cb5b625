// Every IMPORT_SWEEP_SECONDS and at start, on one replica: re-enqueues imports whose job was lost
// or whose worker died.
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, ImportsSweeper, PeriodicTask } from '@app/domain';
import type { AppConfig } from '@app/domain';

@Injectable()
export class ImportsSweepScheduler extends PeriodicTask {
  protected readonly scope = 'cluster';
  protected readonly runAtStart = true;

  constructor(
    private readonly imports: ImportsSweeper,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    super();
  }

  protected intervalMs(): number {
    return this.config.imports.sweepSeconds * 1000;
  }

  protected run(): Promise<unknown> {
    return this.imports.sweep();
  }
}
