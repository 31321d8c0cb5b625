// Every WEBHOOK_SCAN_INTERVAL_MS: raises the contact events whose change committed but whose
// webhook deliveries were not stored right after the commit (the api process died or its database
// restarted in between). See ContactEvents.
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, ContactEvents, PeriodicTask } from '@app/domain';
import type { AppConfig } from '@app/domain';

@Injectable()
export class ContactEventsSweeper extends PeriodicTask {
  constructor(
    private readonly events: ContactEvents,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    super();
  }

  protected intervalMs(): number {
    return this.config.webhookScanIntervalMs;
  }

  protected async run(): Promise<void> {
    const raised = await this.events.sweep();
    if (raised) this.logger.log({ msg: 'contact events raised by the sweeper', raised });
  }
}
