// Every MESSAGE_RETENTION_INTERVAL_MS (daily by default), on one replica: deletes finished webhook
// deliveries past their organization's retention (WebhookRetentionSweeper).
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, PeriodicTask, WebhookRetentionSweeper } from '@app/domain';
import type { AppConfig } from '@app/domain';

@Injectable()
export class WebhookRetentionScheduler extends PeriodicTask {
  protected readonly scope = 'cluster';

  constructor(
    private readonly retention: WebhookRetentionSweeper,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    super();
  }

  protected intervalMs(): number {
    return this.config.messageRetentionIntervalMs;
  }

  protected run(): Promise<unknown> {
    return this.retention.purgeExpired();
  }
}
