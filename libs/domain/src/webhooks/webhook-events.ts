// The one event bus for webhooks: producers call emit(organizationId, type, data). It stores one
// delivery per active endpoint subscribed to the type (durable first), then enqueues each first
// attempt; a job lost in Redis is recovered by the worker's scan (§1).
import { InjectQueue } from '@nestjs/bull';
import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Queue } from 'bull';
import { DataSource, EntityManager } from 'typeorm';
import { Clock } from '../common/clock';
import { QUEUES } from '../queues/queue-names';
import { WebhookDeliveryRepository } from './webhook-delivery.repository';
import { isWebhookEventType, WebhookEventType } from './webhook-event-types';

/** The job of the webhooks queue: a delivery id, nothing else. */
export interface WebhookDeliveryJob {
  deliveryId: string;
}

@Injectable()
export class WebhookEvents {
  private readonly logger = new Logger(WebhookEvents.name);

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    @InjectQueue(QUEUES.webhooks) private readonly queue: Queue<WebhookDeliveryJob>,
    private readonly deliveries: WebhookDeliveryRepository,
    private readonly clock: Clock,
  ) {}

  /**
   * Raises an event: one delivery per active endpoint of the organization subscribed to `type`
   * (an inactive endpoint gets none, now or after reactivation), stored in one statement, then
   * queued. Returns the delivery ids. `data` must be JSON-serialisable and carry no secrets.
   */
  async emit(organizationId: string, type: WebhookEventType, data: unknown): Promise<string[]> {
    const ids = await this.store(this.ds, organizationId, type, data);
    await this.enqueue(ids);
    return ids;
  }

  /**
   * For a producer that raises the event inside its own transaction: stores the deliveries with
   * `manager` and returns their ids. Call `enqueue(ids)` after the transaction commits; if that
   * never happens the worker's scan still sends them, about 30 s later.
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
    await this.enqueue(ids);
    return ids[0] ?? null;
  }

  /** Queues an attempt of each delivery now. A failure here is logged, not thrown: the rows are durable. */
  async enqueue(deliveryIds: string[]): Promise<void> {
    if (!deliveryIds.length) return;
    try {
      // The job is only a pointer to the delivery row, which keeps the history: drop it when done.
      await this.queue.addBulk(
        deliveryIds.map((deliveryId) => ({
          data: { deliveryId },
          opts: { removeOnComplete: true, removeOnFail: 1000 },
        })),
      );
    } catch (err) {
      this.logger.warn({
        msg: 'webhook jobs not queued; the worker scan will send them',
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
      endpointId,
    );
  }
}
