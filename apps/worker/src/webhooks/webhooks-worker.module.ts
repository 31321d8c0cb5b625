// The webhook dispatcher of the worker: the Bull consumer of first attempts and resends, and the
// due-retry scan, over the domain's WebhooksModule.
import { Module } from '@nestjs/common';
import { WebhooksModule } from '@app/domain';
import { WebhookDeliveryProcessor } from './webhook-delivery.processor';
import { WebhookDispatcher } from './webhook-dispatcher.service';
import { WebhookHttpClient } from './webhook-http.client';
import { WebhookRetryScheduler } from './webhook-retry.scheduler';

@Module({
  imports: [WebhooksModule],
  providers: [
    WebhookHttpClient,
    WebhookDispatcher,
    WebhookDeliveryProcessor,
    WebhookRetryScheduler,
  ],
  exports: [WebhookDispatcher],
})
export class WebhooksWorkerModule {}
