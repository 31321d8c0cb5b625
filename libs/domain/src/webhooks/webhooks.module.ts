// Webhooks (§10): endpoints, deliveries and their attempts, their delivery (the dispatcher the
// worker wakes and schedules), and the producers' webhook events not yet on the event path.
import { Module } from '@nestjs/common';
import { DnsModule } from '../dns/dns.module';
import { EventsModule } from '../events/events.module';
import { WebhookDeliveryRepository } from './webhook-delivery.repository';
import { WebhookDeliveryService } from './webhook-delivery.service';
import { WebhookDispatcher } from './webhook-dispatcher';
import { WebhookEndpointService } from './webhook-endpoint.service';
import { WebhookEvents } from './webhook-events';
import { WebhookHttpClient } from './webhook-http.client';
import { WebhookRetention } from './webhook-retention';

@Module({
  imports: [DnsModule, EventsModule],
  providers: [
    WebhookDeliveryRepository,
    WebhookEndpointService,
    WebhookDeliveryService,
    WebhookEvents,
    WebhookRetention,
    WebhookHttpClient,
    WebhookDispatcher,
  ],
  exports: [
    WebhookDeliveryRepository,
    WebhookEndpointService,
    WebhookDeliveryService,
    WebhookEvents,
    WebhookRetention,
    WebhookDispatcher,
  ],
})
export class WebhooksModule {}
