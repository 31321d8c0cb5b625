// The one event bus for webhooks: producers call emit(organizationId, type, data). It stores one
// delivery per active endpoint subscribed to the type (durable first) and, in the same statement,
// wakes the worker's dispatchers with a PostgreSQL NOTIFY carrying the new ids; they claim due
// deliveries in batches. A lost wake-up is recovered by the worker's scan (§1).
import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { createHash } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { Clock } from '../common/clock';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { WebhookDeliveryRepository } from './webhook-delivery.repository';
import { isWebhookEventType, WebhookEventType } from './webhook-event-types';

/**
 * The NOTIFY channel of the webhook dispatchers of one deployment (one Bull prefix), so that
 * deployments or test runs sharing a database do not wake each other. Hashed: a channel name is
 * an identifier of at most 63 bytes.
 */
export function webhookWakeChannel(bullPrefix: string): string {
  return `webhooks_${createHash('sha256').update(bullPrefix).digest('hex').slice(0, 20)}`;
}

@Injectable()
export class WebhookEvents {
  private readonly logger = new Logger(WebhookEvents.name);
  private readonly channel: string;

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly deliveries: WebhookDeliveryRepository,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.channel = webhookWakeChannel(config.bullPrefix);
  }

  /**
   * Raises an event: one delivery per active endpoint of the organization subscribed to `type`
   * (an inactive endpoint gets none, now or after reactivation), stored and announced to the
   * dispatchers in one statement. Returns the delivery ids. `data` must be JSON-serialisable and
   * carry no secrets.
   */
  async emit(organizationId: string, type: WebhookEventType, data: unknown): Promise<string[]> {
    return this.store(this.ds, organizationId, type, data);
  }

  /**
   * For a producer that raises the event inside its own transaction: stores the deliveries with
   * `manager` and returns their ids. The dispatchers are woken when that transaction commits
   * (NOTIFY is transactional); calling `enqueue(ids)` afterwards is harmless.
   */
  async emitWithin(
    manager: EntityManager,
    organizationId: string,
    type: WebhookEventType,
    data: unknown,
  ): Promise<string[]> {
    return this.store(manager, organizationId, type, data);
  }

  /** One delivery to one endpoint (the test operation); none if the endpoint is inactive. */
  async emitToEndpoint(
    organizationId: string,
    endpointId: string,
    type: WebhookEventType,
    data: unknown,
  ): Promise<string | null> {
    const ids = await this.store(this.ds, organizationId, type, data, endpointId);
    return ids[0] ?? null;
  }

  /**
   * Wakes the dispatchers for committed deliveries (a resend). A failure here is logged, not
   * thrown: the rows are durable and the worker's scan sends them.
   */
  async enqueue(deliveryIds: string[]): Promise<void> {
    if (!deliveryIds.length) return;
    try {
      await this.deliveries.notify(this.channel, deliveryIds);
    } catch (err) {
      this.logger.warn({
        msg: 'webhook dispatchers not woken; the worker scan will send the deliveries',
        count: deliveryIds.length,
        err: (err as Error).message,
      });
    }
  }

  private async store(
    db: EntityManager | DataSource,
    organizationId: string,
    type: WebhookEventType,
    data: unknown,
    endpointId?: string,
  ): Promise<string[]> {
    if (!isWebhookEventType(type)) throw new Error(`Unknown webhook event type: ${type}`);
    return this.deliveries.insertForEvent(
      db,
      organizationId,
      type,
      data,
      this.clock.now(),
      this.channel,
      endpointId,
    );
  }
}
