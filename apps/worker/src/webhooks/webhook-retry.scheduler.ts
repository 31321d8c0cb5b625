// The due-retry scan (§10): every WEBHOOK_SCAN_INTERVAL_MS each worker claims due deliveries with
// FOR UPDATE SKIP LOCKED (also those whose first job was lost or whose worker died) and attempts them.
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
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(
    private readonly dispatcher: WebhookDispatcher,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.scan(), this.config.webhookScanIntervalMs);
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await Promise.allSettled([...this.inFlight]);
  }

  /** One scan: claims as many due deliveries as there are free attempt slots. */
  async scan(): Promise<number> {
    if (this.scanning || !this.timer) return 0;
    this.scanning = true;
    try {
      const free = this.config.webhookConcurrency - this.inFlight.size;
      if (free <= 0) return 0;
      const claimed = await this.dispatcher.claimDue(free);
      for (const c of claimed) {
        const run: Promise<unknown> = this.dispatcher
          .attempt(c)
          .catch((err: Error) =>
            this.logger.error({
              msg: 'webhook retry attempt failed',
              deliveryId: c.id,
              err: err.message,
            }),
          )
          .finally(() => this.inFlight.delete(run));
        this.inFlight.add(run);
      }
      return claimed.length;
    } catch (err) {
      this.logger.warn({ msg: 'webhook retry scan failed', err: (err as Error).message });
      return 0;
    } finally {
      this.scanning = false;
    }
  }
}
