// The webhook dispatcher of the worker: woken by PostgreSQL NOTIFY for first attempts and resends,
// and the due-retry scan, over the domain's WebhooksModule.
import { Module } from '@nestjs/common';
import { DnsModule, WebhooksModule } from '@app/domain';
import { WebhookDispatcher } from './webhook-dispatcher.service';
import { WebhookHttpClient } from './webhook-http.client';
import { WebhookRetentionScheduler } from './webhook-retention.scheduler';
import { WebhookRetryScheduler } from './webhook-retry.scheduler';
import { WebhookWakeListener } from './webhook-wake.listener';

@Module({
  imports: [WebhooksModule, DnsModule],
  providers: [
    WebhookHttpClient,
    WebhookDispatcher,
    WebhookWakeListener,
    WebhookRetryScheduler,
    WebhookRetentionScheduler,
  ],
  exports: [WebhookDispatcher],
})
export class WebhooksWorkerModule {}
