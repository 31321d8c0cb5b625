// Every WEBHOOK_SCAN_INTERVAL_MS: raises the contact events whose change committed but whose
// webhook deliveries were not stored right after the commit (the api process died or its database
// restarted in between). See ContactEvents.
import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import { APP_CONFIG, ContactEvents } from '@app/domain';
import type { AppConfig } from '@app/domain';
import { Periodic } from '../periodic';

@Injectable()
export class ContactEventsSweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(ContactEventsSweeper.name);
  private readonly periodic = new Periodic('contact event sweep', this.logger, async () => {
    const raised = await this.events.sweep();
    if (raised) this.logger.log({ msg: 'contact events raised by the sweeper', raised });
  });

  constructor(
    private readonly events: ContactEvents,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.periodic.start(this.config.webhookScanIntervalMs);
  }

  onApplicationShutdown(): Promise<void> {
    return this.periodic.stop();
  }
}
