// Every 10 minutes, on one replica: the import files housekeeping (§16).
import { Injectable } from '@nestjs/common';
import { ImportFilesSweeper, PeriodicTask } from '@app/domain';

const INTERVAL_MS = 10 * 60 * 1000;

@Injectable()
export class ImportsHousekeeping extends PeriodicTask {
  protected readonly scope = 'cluster';

  constructor(private readonly files: ImportFilesSweeper) {
    super();
  }

  protected intervalMs(): number {
    return INTERVAL_MS;
  }

  protected run(): Promise<unknown> {
    return this.files.housekeeping();
  }
}
