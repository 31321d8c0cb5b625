// Wake-ups of the dispatcher: a dedicated PostgreSQL connection LISTENs on the deployment's
// webhook channel; `Events.wake` (and the producers' own NOTIFYs) send the ids of committed
// deliveries. A wake-up lost while the connection is down is recovered by the scan.
import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { AppConfig } from '@app/domain';
import { APP_CONFIG, isUuid, PgListener, WebhookDispatcher, webhookWakeChannel } from '@app/domain';
import { DataSource } from 'typeorm';

/** The delivery ids of a notification payload (comma-separated); anything else is ignored. */
export function wokenIds(payload: string | undefined): string[] {
  return (payload ?? '').split(',').filter(isUuid);
}

@Injectable()
export class WebhookWakeListener implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(WebhookWakeListener.name);
  private readonly listener: PgListener;

  constructor(
    @InjectDataSource() ds: DataSource,
    private readonly dispatcher: WebhookDispatcher,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.listener = new PgListener(
      (ds.options as { url?: string }).url,
      webhookWakeChannel(config.bullPrefix),
      { notified: (payload) => this.dispatcher.wake(wokenIds(payload)) },
      this.logger,
    );
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.listener.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.listener.stop();
  }
}
