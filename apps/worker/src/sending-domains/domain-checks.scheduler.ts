// The re-check schedule of sending domains (§13): every DOMAIN_CHECK_INTERVAL_MS the worker checks
// the domains whose next check is due (pending ones every 10 minutes for 72 hours, verified ones
// daily). Safe on N replicas: due domains are claimed with SKIP LOCKED.
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, PeriodicTask, SendingDomainService } from '@app/domain';
import type { AppConfig } from '@app/domain';

@Injectable()
export class DomainChecksScheduler extends PeriodicTask {
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
