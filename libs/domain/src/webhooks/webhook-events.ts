// Webhook events of the producers that store them with their own wake-up NOTIFY (in the
// producer's statement or transaction) instead of through `Events` (events/events.service.ts),
// the event path every producer moves to. The dispatchers claim the announced deliveries in
// batches; a lost wake-up is recovered by the worker's scan (§1).
import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { Clock } from '../common/clock';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { EventType, isEventType } from '../events/event-types';
import { webhookWakeChannel } from '../events/events.service';
import { WebhookDeliveryRepository } from './webhook-delivery.repository';

/** One event of `emitManyWithin`. */
export interface WebhookEvent {
  organizationId: string;
  type: EventType;
  /** JSON-serialisable, without secrets; sent as given. */
  data: unknown;
  /** The envelope's `timestamp`; now when not given. */
  occurredAt?: Date;
}

@Injectable()
export class WebhookEvents {
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
   * Stores several events in the producer's transaction (e.g. one per recipient), in one
   * statement whose NOTIFY wakes the dispatchers when that transaction commits. An event without
   * `occurredAt` happened now.
   */
  // removed once messaging/contacts use Events
  async emitManyWithin(manager: EntityManager, events: WebhookEvent[]): Promise<string[]> {
    if (!events.length) return [];
    const now = this.clock.now();
    for (const e of events) {
      if (!isEventType(e.type)) throw new Error(`Unknown event type: ${e.type}`);
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
  // removed once messaging/contacts use Events
  async emitMany(events: WebhookEvent[]): Promise<string[]> {
    return this.emitManyWithin(this.ds.manager, events);
  }

  /**
   * `emitManyWithin` as part of the producer's own statement (see
   * `WebhookDeliveryRepository.eventsStatement`): the same deliveries, stored and announced
   * exactly when that statement commits.
   */
  // removed once messaging/contacts use Events
  manyWithinStatement(
    events: WebhookEvent[],
    params: unknown[],
    when?: string,
  ): { deliveries: string; probe: string } {
    const now = this.clock.now();
    for (const e of events) {
      if (!isEventType(e.type)) throw new Error(`Unknown event type: ${e.type}`);
    }
    return this.deliveries.eventsStatement(
      events.map((e) => ({ ...e, occurredAt: e.occurredAt ?? now })),
      now,
      this.channel,
      params,
      when,
    );
  }
}
