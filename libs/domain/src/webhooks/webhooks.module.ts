// Webhooks (§10): endpoints, deliveries and their attempts, and the producers' webhook events not
// yet on the event path. The worker's dispatcher uses the repository's claim and finish statements.
import { Module } from '@nestjs/common';
import { DnsModule } from '../dns/dns.module';
import { EventsModule } from '../events/events.module';
import { WebhookDeliveryRepository } from './webhook-delivery.repository';
import { WebhookDeliveryService } from './webhook-delivery.service';
import { WebhookEndpointService } from './webhook-endpoint.service';
import { WebhookEvents } from './webhook-events';
import { WebhookRetention } from './webhook-retention';

@Module({
  imports: [DnsModule, EventsModule],
  providers: [
    WebhookDeliveryRepository,
    WebhookEndpointService,
    WebhookDeliveryService,
    WebhookEvents,
    WebhookRetention,
  ],
  exports: [
    WebhookDeliveryRepository,
    WebhookEndpointService,
    WebhookDeliveryService,
    WebhookEvents,
    WebhookRetention,
  ],
})
export class WebhooksModule {}
