// Worker transport of webhook delivery: the wake-up listener and the retry and retention timers
// over the domain's dispatcher (WebhooksModule).
import { Module } from '@nestjs/common';
import { WebhooksModule } from '@app/domain';
import { WebhookRetentionScheduler } from './webhook-retention.scheduler';
import { WebhookRetryScheduler } from './webhook-retry.scheduler';
import { WebhookWakeListener } from './webhook-wake.listener';

@Module({
  imports: [WebhooksModule],
  providers: [WebhookWakeListener, WebhookRetryScheduler, WebhookRetentionScheduler],
})
export class WebhooksWorkerModule {}
