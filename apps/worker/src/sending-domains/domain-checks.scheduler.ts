// The re-check schedule of sending domains (§13): every DOMAIN_CHECK_INTERVAL_MS one replica checks
// the domains whose next check is due (pending ones every 10 minutes for 72 hours, verified ones
// daily). Due domains are also claimed with SKIP LOCKED: a run started directly (runNow) beside a
// timed one never checks a domain twice.
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, PeriodicTask, SendingDomainService } from '@app/domain';
import type { AppConfig } from '@app/domain';

@Injectable()
export class DomainChecksScheduler extends PeriodicTask {
  protected readonly scope = 'cluster';

  constructor(
    private readonly domains: SendingDomainService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    super();
  }

  protected intervalMs(): number {
    return this.config.sendingDomains.checkIntervalMs;
  }

  protected run(): Promise<unknown> {
    return this.domains.checkDue();
  }
}
