// The due-retry scan (§10): every WEBHOOK_SCAN_INTERVAL_MS each worker claims due deliveries with
// FOR UPDATE SKIP LOCKED (also those whose first job was lost or whose worker died) and attempts
// them, as many as it has free request slots. The dispatcher waits for the attempts at shutdown.
import { Inject, Injectable } from '@nestjs/common';
import type { AppConfig } from '@app/domain';
import { APP_CONFIG, PeriodicTask, WebhookDispatcher } from '@app/domain';

@Injectable()
export class WebhookRetryScheduler extends PeriodicTask {
  // Every replica: the claim shares due deliveries out, each up to its own free request slots.
  protected readonly scope = 'process';

  constructor(
    private readonly dispatcher: WebhookDispatcher,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    super();
  }

  protected intervalMs(): number {
    return this.config.webhookScanIntervalMs;
  }

  /** One scan; claims as many due deliveries as the dispatcher has free request slots. */
  protected run(): Promise<number> {
    return this.dispatcher.dispatchDue();
  }
}
