// Webhooks (§10): endpoints, deliveries and their attempts, their delivery (the dispatcher the
// worker wakes and schedules), and the producers' webhook events not yet on the event path.
import { Module } from '@nestjs/common';
import { DnsModule } from '../dns/dns.module';
import { EventsModule } from '../events/events.module';
import { TenancyModule } from '../tenancy/tenancy.module';
import { WebhookDeliveryLogRepository } from './webhook-delivery-log.repository';
import { WebhookDeliveryService } from './webhook-delivery.service';
import { WebhookDispatcher } from './webhook-dispatcher';
import { WebhookEndpointRepository } from './webhook-endpoint.repository';
import { WebhookEndpointService } from './webhook-endpoint.service';
import { WebhookHttpClient } from './webhook-http.client';
import { WebhookQueueRepository } from './webhook-queue.repository';
import { WebhookQueueSweeper } from './webhook-queue.sweeper';
import { WebhookRetentionSweeper } from './webhook-retention.sweeper';

@Module({
  imports: [DnsModule, EventsModule, TenancyModule],
  providers: [
    WebhookQueueRepository,
    WebhookQueueSweeper,
    WebhookDeliveryLogRepository,
    WebhookEndpointRepository,
    WebhookEndpointService,
    WebhookDeliveryService,
    WebhookRetentionSweeper,
    WebhookHttpClient,
    WebhookDispatcher,
  ],
  exports: [
    WebhookEndpointService,
    WebhookDeliveryService,
    WebhookRetentionSweeper,
    WebhookDispatcher,
  ],
})
export class WebhooksModule {}
