// Wake-ups of the dispatcher: a dedicated PostgreSQL connection LISTENs on the deployment's
// webhook channel; emit() NOTIFYs it with the ids of the deliveries it committed. A wake-up lost
// while the connection is down is recovered by the scan (stale pending deliveries).
import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { AppConfig } from '@app/domain';
import { APP_CONFIG, webhookWakeChannel } from '@app/domain';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { WebhookDispatcher } from './webhook-dispatcher.service';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const RECONNECT_MS = 1000;

/** The delivery ids of a notification payload (comma-separated); anything else is ignored. */
export function wokenIds(payload: string | undefined): string[] {
  return (payload ?? '').split(',').filter((id) => UUID.test(id));
}

@Injectable()
export class WebhookWakeListener implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(WebhookWakeListener.name);
  private readonly channel: string;
  private client?: pg.Client;
  private stopped = false;
  private retry?: NodeJS.Timeout;

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly dispatcher: WebhookDispatcher,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.channel = webhookWakeChannel(config.bullPrefix);
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.connect();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const options = this.ds.options as { url?: string };
    const client = new pg.Client({ connectionString: options.url });
    client.on('notification', (n) => {
      if (n.channel === this.channel) this.dispatcher.wake(wokenIds(n.payload));
    });
    const lost = (err?: Error) => {
      if (this.client !== client) return;
      this.client = undefined;
      client.removeAllListeners('notification');
      void client.end().catch(() => undefined);
      if (this.stopped) return;
      this.logger.warn({ msg: 'webhook wake-up connection lost', err: err?.message });
      this.retry = setTimeout(() => void this.connect(), RECONNECT_MS);
    };
    client.on('error', lost);
    client.on('end', () => lost());
    this.client = client;
    try {
      await client.connect();
      await client.query(`LISTEN "${this.channel}"`);
    } catch (err) {
      lost(err as Error);
    }
  }
}
