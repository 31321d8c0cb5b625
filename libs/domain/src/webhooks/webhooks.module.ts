// Webhooks (§10): endpoints, the event bus producers call, deliveries and their attempts. The
// worker's dispatcher uses the repository's claim and finish statements.
import { Module } from '@nestjs/common';
import { DnsModule } from '../dns/dns.module';
import { WebhookDeliveryRepository } from './webhook-delivery.repository';
import { WebhookDeliveryService } from './webhook-delivery.service';
import { WebhookEndpointService } from './webhook-endpoint.service';
import { WebhookEvents } from './webhook-events';
import { WebhookRetention } from './webhook-retention';

@Module({
  imports: [DnsModule],
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
