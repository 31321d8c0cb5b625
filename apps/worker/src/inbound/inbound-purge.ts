// Hourly, on one replica: processed inbound mail older than its keep time is deleted (§14).
import { Injectable } from '@nestjs/common';
import { InboundService, PeriodicTask } from '@app/domain';

const INTERVAL_MS = 60 * 60_000;

@Injectable()
export class InboundPurge extends PeriodicTask {
  protected readonly scope = 'cluster';

  constructor(private readonly inbound: InboundService) {
    super();
  }

  protected intervalMs(): number {
    return INTERVAL_MS;
  }

  protected run(): Promise<unknown> {
    return this.inbound.purgeFinished();
  }
}
