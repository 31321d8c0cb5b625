// The one event bus for webhooks: producers call emit(organizationId, type, data). It stores one
// delivery per active endpoint subscribed to the type (durable first), then wakes the worker's
// dispatchers with a PostgreSQL NOTIFY carrying the new ids; they claim due deliveries in
// batches. A lost wake-up is recovered by the worker's scan (§1).
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

/** One event of `emitManyWithin`. */
export interface WebhookEvent {
  organizationId: string;
  type: WebhookEventType;
  /** JSON-serialisable, without secrets; sent as given. */
  data: unknown;
  /** The envelope's `timestamp`; now when not given. */
  occurredAt?: Date;
}

@Injectable()
export class WebhookEvents {
  private readonly logger = new Logger(WebhookEvents.name);
  private readonly channel: string;
  private wakeQueue: string[] = [];
  private wakeWaiters: (() => void)[] = [];
  private waking = false;

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
   * (an inactive endpoint gets none, now or after reactivation), stored in one statement, then
   * announced to the dispatchers. Returns the delivery ids. `data` must be JSON-serialisable and
   * carry no secrets.
   */
  async emit(organizationId: string, type: WebhookEventType, data: unknown): Promise<string[]> {
    const ids = await this.store(this.ds, organizationId, type, data, false);
    await this.enqueue(ids);
    return ids;
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
    return this.store(manager, organizationId, type, data, true);
  }

  /**
   * `emitWithin` for several events of one transaction (e.g. one per recipient), in one
   * statement. An event without `occurredAt` happened now.
   */
  async emitManyWithin(manager: EntityManager, events: WebhookEvent[]): Promise<string[]> {
    if (!events.length) return [];
    const now = this.clock.now();
    for (const e of events) {
      if (!isWebhookEventType(e.type)) throw new Error(`Unknown webhook event type: ${e.type}`);
    }
    return this.deliveries.insertForEvents(
      manager,
      events.map((e) => ({ ...e, occurredAt: e.occurredAt ?? now })),
      now,
      this.channel,
    );
  }

  /**
   * `emitManyWithin` on its own: one statement stores every event's deliveries and, when it
   * commits, wakes the dispatchers.
   */
  async emitMany(events: WebhookEvent[]): Promise<string[]> {
    return this.emitManyWithin(this.ds.manager, events);
  }

  /**
   * `emitManyWithin` as part of the producer's own statement (see
   * `WebhookDeliveryRepository.eventsStatement`): the same deliveries, stored and announced
   * exactly when that statement commits.
   */
  manyWithinStatement(
    events: WebhookEvent[],
    params: unknown[],
    when?: string,
  ): { deliveries: string; probe: string } {
    const now = this.clock.now();
    for (const e of events) {
      if (!isWebhookEventType(e.type)) throw new Error(`Unknown webhook event type: ${e.type}`);
    }
    return this.deliveries.eventsStatement(
      events.map((e) => ({ ...e, occurredAt: e.occurredAt ?? now })),
      now,
      this.channel,
      params,
      when,
    );
  }

  /** One delivery to one endpoint (the test operation); none if the endpoint is inactive. */
  async emitToEndpoint(
    organizationId: string,
    endpointId: string,
    type: WebhookEventType,
    data: unknown,
  ): Promise<string | null> {
    const id = await this.storeForEndpoint(organizationId, endpointId, type, data);
    if (id) await this.enqueue([id]);
    return id;
  }

  /**
   * `emitToEndpoint` without the wake-up: the caller reads the delivery as stored, then calls
   * `enqueue([id])` (a dispatcher may attempt it within milliseconds of the wake-up).
   */
  async storeForEndpoint(
    organizationId: string,
    endpointId: string,
    type: WebhookEventType,
    data: unknown,
  ): Promise<string | null> {
    const ids = await this.store(this.ds, organizationId, type, data, false, endpointId);
    return ids[0] ?? null;
  }

  /**
   * Wakes the dispatchers for committed deliveries. Calls made while a notification is being
   * sent go together in the next one: PostgreSQL serialises the commits of notifying
   * transactions, so one per emit would cap emits at one commit flush each. A failure is
   * logged, not thrown: the rows are durable and the worker's scan sends them.
   */
  enqueue(deliveryIds: string[]): Promise<void> {
    if (!deliveryIds.length) return Promise.resolve();
    return new Promise<void>((resolve) => {
      this.wakeQueue.push(...deliveryIds);
      this.wakeWaiters.push(resolve);
      if (!this.waking) void this.flushWakes();
    });
  }

  private async flushWakes(): Promise<void> {
    this.waking = true;
    while (this.wakeQueue.length) {
      const ids = this.wakeQueue;
      const waiters = this.wakeWaiters;
      this.wakeQueue = [];
      this.wakeWaiters = [];
      try {
        await this.deliveries.notify(this.channel, ids);
      } catch (err) {
        this.logger.warn({
          msg: 'webhook dispatchers not woken; the worker scan will send the deliveries',
          count: ids.length,
          err: (err as Error).message,
        });
      }
      for (const w of waiters) w();
    }
    this.waking = false;
  }

  private async store(
    db: EntityManager | DataSource,
    organizationId: string,
    type: WebhookEventType,
    data: unknown,
    notifyOnCommit: boolean,
    endpointId?: string,
  ): Promise<string[]> {
    if (!isWebhookEventType(type)) throw new Error(`Unknown webhook event type: ${type}`);
    return this.deliveries.insertForEvent(
      db,
      organizationId,
      type,
      data,
      this.clock.now(),
      notifyOnCommit ? this.channel : null,
      endpointId,
    );
  }
}
