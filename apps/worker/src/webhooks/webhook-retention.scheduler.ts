// Every MESSAGE_RETENTION_INTERVAL_MS (daily by default): deletes finished webhook deliveries past
// their organization's retention (WebhookRetention). Safe on N replicas (rows taken with SKIP LOCKED).
import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import { APP_CONFIG, WebhookRetention } from '@app/domain';
import type { AppConfig } from '@app/domain';
import { Periodic } from '../periodic';

@Injectable()
export class WebhookRetentionScheduler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly periodic = new Periodic(
    'webhook delivery retention purge',
    new Logger(WebhookRetentionScheduler.name),
    () => this.retention.purgeExpired(),
  );

  constructor(
    private readonly retention: WebhookRetention,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.periodic.start(this.config.messageRetentionIntervalMs);
  }

  onApplicationShutdown(): Promise<void> {
    return this.periodic.stop();
  }
}
