// The one way an event is born: `emit` stores it in the change's own transaction (a webhook
// delivery per subscribed endpoint); after the commit, `wake` tells the webhook dispatchers.
import { BeforeApplicationShutdown, Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { createHash } from 'node:crypto';
import type {
  DataSource,
  EntityManager,
  EntitySubscriberInterface,
  QueryRunner,
  TransactionCommitEvent,
  TransactionRollbackEvent,
} from 'typeorm';
import { Clock } from '../common/clock';
import type { OrgId } from '../common/org-id';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { EventRepository, NOTIFY_IDS_MAX } from './event.repository';
import { EventType, isEventType } from './event-types';

/**
 * The NOTIFY channel of the webhook dispatchers of one deployment (one Bull prefix), so that
 * deployments or test runs sharing a database do not wake each other. Hashed: a channel name is
 * an identifier of at most 63 bytes.
 */
export function webhookWakeChannel(bullPrefix: string): string {
  return `webhooks_${createHash('sha256').update(bullPrefix).digest('hex').slice(0, 20)}`;
}

export interface NewEvent {
  type: EventType;
  /** JSON-serialisable, without secrets; sent as given. */
  data: unknown;
  /** The envelope's `timestamp`; now when not given. */
  occurredAt?: Date;
}

/** Committed ids waiting for a `wake` beyond this many are announced at once. */
const READY_MAX = NOTIFY_IDS_MAX * 100;

@Injectable()
export class Events implements BeforeApplicationShutdown {
  private readonly logger = new Logger(Events.name);
  private readonly channel: string;
  /**
   * Delivery ids stored by transactions still open, by their query runner: they become `ready`
   * when that transaction commits, and are dropped when it rolls back.
   */
  private readonly pending = new WeakMap<QueryRunner, string[]>();
  /** Delivery ids committed and not announced yet. */
  private ready: string[] = [];
  /** The notification under way, if any. */
  private waking?: Promise<void>;
  private readonly hooked = new WeakSet<DataSource>();
  private readonly transactions: EntitySubscriberInterface = {
    afterTransactionCommit: (e: TransactionCommitEvent) => this.ended(e.queryRunner, true),
    afterTransactionRollback: (e: TransactionRollbackEvent) => this.ended(e.queryRunner, false),
  };

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly repository: EventRepository,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.channel = webhookWakeChannel(config.bullPrefix);
    this.hook(ds);
  }

  /**
   * Stores the events in the caller's transaction: one webhook delivery (and its queue row) per
   * active endpoint of the organization subscribed to the type, in the same snapshot. An
   * inactive endpoint gets none, now or after its reactivation.
   */
  async emit(em: EntityManager, organizationId: OrgId, events: NewEvent[]): Promise<void> {
    if (!events.length) return;
    const now = this.clock.now();
    for (const e of events) this.check(e);
    const ids = await this.repository.insert(
      em,
      organizationId,
      events.map((e) => ({ type: e.type, data: e.data, occurredAt: e.occurredAt ?? now })),
      now,
    );
    this.stored(em, ids);
  }

  /**
   * One delivery to one endpoint (the test operation), in the caller's transaction; returns its
   * id, or null when the endpoint is inactive or absent.
   */
  async emitToEndpoint(
    em: EntityManager,
    organizationId: OrgId,
    endpointId: string,
    event: NewEvent,
  ): Promise<string | null> {
    this.check(event);
    const now = this.clock.now();
    const id = await this.repository.insertForEndpoint(
      em,
      organizationId,
      endpointId,
      { type: event.type, data: event.data, occurredAt: event.occurredAt ?? now },
      now,
    );
    if (id) this.stored(em, [id]);
    return id;
  }

  /**
   * After the commit: wakes the webhook dispatchers for the deliveries committed since the last
   * wake-up. Calls made while a notification is being sent go together in the next one (one
   * NOTIFY statement for many changes). Never throws and never waits: a lost wake-up is
   * recovered by the dispatchers' periodic sweep.
   */
  wake(): void {
    if (!this.ready.length || this.waking) return;
    this.waking = this.flush().finally(() => (this.waking = undefined));
  }

  /**
   * `wake` for stored deliveries made due again outside `emit` (a resend), once that change has
   * committed.
   */
  wakeFor(deliveryIds: string[]): void {
    this.ready.push(...deliveryIds);
    this.wake();
  }

  /** A notification under way is sent before the connection closes. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.waking;
  }

  private check(event: NewEvent): void {
    if (!isEventType(event.type)) throw new Error(`Unknown event type: ${String(event.type)}`);
  }

  /** Ids stored with `em`: ready now if it is not in a transaction, else when it commits. */
  private stored(em: EntityManager, ids: string[]): void {
    if (!ids.length) return;
    const runner = em.queryRunner;
    if (runner?.isTransactionActive) {
      this.hook(em.connection);
      const list = this.pending.get(runner);
      if (list) list.push(...ids);
      else this.pending.set(runner, [...ids]);
      return;
    }
    this.ready.push(...ids);
    if (this.ready.length >= READY_MAX) this.wake();
  }

  /**
   * A transaction (or one of its savepoints) ended. Only the outermost commit makes its ids
   * ready; a savepoint rolled back keeps them pending (an id that does not exist is skipped by the
   * dispatcher's claim).
   */
  private ended(runner: QueryRunner, committed: boolean): void {
    if (runner.isTransactionActive) return;
    const ids = this.pending.get(runner);
    if (!ids) return;
    this.pending.delete(runner);
    if (!committed) return;
    this.ready.push(...ids);
    if (this.ready.length >= READY_MAX) this.wake();
  }

  private hook(ds: DataSource): void {
    if (this.hooked.has(ds)) return;
    this.hooked.add(ds);
    ds.subscribers.push(this.transactions);
  }

  private async flush(): Promise<void> {
    while (this.ready.length) {
      const ids = this.ready;
      this.ready = [];
      try {
        await this.repository.notify(this.ds, this.channel, ids);
      } catch (err) {
        this.logger.warn({
          msg: 'webhook dispatchers not woken; their sweep will send the deliveries',
          count: ids.length,
          err: (err as Error).message,
        });
      }
    }
  }
}
