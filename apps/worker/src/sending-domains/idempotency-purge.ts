// Hourly, on one replica: Idempotency-Key records older than 24 hours are deleted (§13). Lookups
// already ignore expired ones; this keeps the table small.
import { Injectable } from '@nestjs/common';
import { IdempotencySweeper, PeriodicTask } from '@app/domain';

const INTERVAL_MS = 60 * 60_000;

@Injectable()
export class IdempotencyPurge extends PeriodicTask {
  protected readonly scope = 'cluster';

  constructor(private readonly keys: IdempotencySweeper) {
    super();
  }

  protected intervalMs(): number {
    return INTERVAL_MS;
  }

  protected run(): Promise<unknown> {
    return this.keys.purgeExpired();
  }
}
