// The due-retry scan (§10): every WEBHOOK_SCAN_INTERVAL_MS each worker claims due deliveries with
// FOR UPDATE SKIP LOCKED (also those whose first job was lost or whose worker died) and attempts
// them, as many as it has free request slots. The dispatcher waits for the attempts at shutdown.
import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import type { AppConfig } from '@app/domain';
import { APP_CONFIG } from '@app/domain';
import { WebhookDispatcher } from './webhook-dispatcher.service';

@Injectable()
export class WebhookRetryScheduler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(WebhookRetryScheduler.name);
  private timer?: NodeJS.Timeout;
  private scanning = false;

  constructor(
    private readonly dispatcher: WebhookDispatcher,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.scan(), this.config.webhookScanIntervalMs);
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** One scan; returns how many deliveries it claimed. */
  async scan(): Promise<number> {
    if (this.scanning || !this.timer) return 0;
    this.scanning = true;
    try {
      return await this.dispatcher.dispatchDue();
    } catch (err) {
      this.logger.warn({ msg: 'webhook retry scan failed', err: (err as Error).message });
      return 0;
    } finally {
      this.scanning = false;
    }
  }
}
