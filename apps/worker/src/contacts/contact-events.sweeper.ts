// Every WEBHOOK_SCAN_INTERVAL_MS: raises the contact events whose change committed but whose
// webhook deliveries were not stored right after the commit (the api process died or its database
// restarted in between). See ContactEvents.
import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnModuleDestroy,
} from '@nestjs/common';
import { APP_CONFIG, ContactEvents } from '@app/domain';
import type { AppConfig } from '@app/domain';

@Injectable()
export class ContactEventsSweeper implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(ContactEventsSweeper.name);
  private timer?: NodeJS.Timeout;
  private running = false;

  constructor(
    private readonly events: ContactEvents,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.sweep(), this.config.webhookScanIntervalMs);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    if (this.timer) clearInterval(this.timer);
  }

  async sweep(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      const raised = await this.events.sweep();
      if (raised) this.logger.log({ msg: 'contact events raised by the sweeper', raised });
    } catch (err) {
      this.logger.warn({ msg: 'contact event sweep failed', err: (err as Error).message });
    } finally {
      this.running = false;
    }
  }
}
