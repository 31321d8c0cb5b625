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
import { WebhookRetention } from './webhook-retention';

@Module({
  imports: [DnsModule, EventsModule, TenancyModule],
  providers: [
    WebhookQueueRepository,
    WebhookDeliveryLogRepository,
    WebhookEndpointRepository,
    WebhookEndpointService,
    WebhookDeliveryService,
    WebhookRetention,
    WebhookHttpClient,
    WebhookDispatcher,
  ],
  exports: [WebhookEndpointService, WebhookDeliveryService, WebhookRetention, WebhookDispatcher],
})
export class WebhooksModule {}
