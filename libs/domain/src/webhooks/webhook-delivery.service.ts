// Deliveries as the API sees them: the newest-first cursor list, one delivery with its attempts,
// the resend transitions of the spec, and the test event of an endpoint.
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Clock } from '../common/clock';
import { isUuid } from '../common/ids';
import type { OrgId } from '../common/org-id';
import { inTransaction } from '../database/transaction';
import {
  ConflictError,
  InvalidStateError,
  NotFoundError,
  ValidationFailedError,
} from '../errors/domain-errors';
import { Events } from '../events/events.service';
import type { WebhookAttempt } from './webhook-attempt.entity';
import {
  DeliveryCursor,
  DeliveryFilters,
  DeliveryRow,
  WebhookDeliveryLogRepository,
} from './webhook-delivery-log.repository';
import { WebhookEndpointService } from './webhook-endpoint.service';
import { WEBHOOK_MESSAGES } from './webhook-event-types';
import { WebhookQueueRepository } from './webhook-queue.repository';

export interface DeliveryListQuery extends DeliveryFilters {
  limit: number;
  cursor?: string;
  includeAttempts?: boolean;
}

export interface DeliveryView {
  delivery: DeliveryRow;
  attempts?: WebhookAttempt[];
}

export interface DeliveryList {
  items: DeliveryView[];
  meta: { limit: number; hasMore: boolean; nextCursor: string | null };
}

const CURSOR_TS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

/** Opaque to clients: base64url of the last row's position. */
export function encodeCursor(c: DeliveryCursor): string {
  return Buffer.from(`${c.createdAt}|${c.id}`, 'utf8').toString('base64url');
}

export function decodeCursor(raw: string): DeliveryCursor {
  const [createdAt, id] = Buffer.from(raw, 'base64url').toString('utf8').split('|');
  if (!createdAt || !id || !CURSOR_TS.test(createdAt) || !isUuid(id)) {
    throw ValidationFailedError.field('cursor', 'type', 'cursor is not valid');
  }
  return { createdAt, id };
}

@Injectable()
export class WebhookDeliveryService {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly log: WebhookDeliveryLogRepository,
    private readonly queue: WebhookQueueRepository,
    private readonly endpoints: WebhookEndpointService,
    private readonly events: Events,
    private readonly clock: Clock,
  ) {}

  async list(organizationId: OrgId, q: DeliveryListQuery): Promise<DeliveryList> {
    const cursor = q.cursor ? decodeCursor(q.cursor) : undefined;
    const rows = await this.log.list(organizationId, q, cursor, q.limit + 1);
    const hasMore = rows.length > q.limit;
    const page = rows.slice(0, q.limit);
    const last = page[page.length - 1];
    const attempts = q.includeAttempts ? await this.attemptsByDelivery(organizationId, page) : null;
    return {
      items: page.map((delivery) => ({
        delivery,
        attempts: attempts ? (attempts.get(delivery.id) ?? []) : undefined,
      })),
      meta: {
        limit: q.limit,
        hasMore,
        nextCursor:
          hasMore && last ? encodeCursor({ createdAt: last.cursorAt, id: last.id }) : null,
      },
    };
  }

  async get(organizationId: OrgId, id: string): Promise<DeliveryView> {
    const delivery = await this.log.get(organizationId, id);
    if (!delivery) throw new NotFoundError('Webhook delivery');
    const attempts = await this.log.attempts(organizationId, [id]);
    return { delivery, attempts };
  }

  /**
   * Resend (spec transitions): delivered → 400; attempts exhausted → failed, not sent; otherwise
   * pending and queued at once, with the stored body (same delivery_id and timestamp) and the
   * attempt count kept.
   */
  async retry(organizationId: OrgId, id: string): Promise<DeliveryView> {
    const send = await inTransaction(this.ds, async (em) => {
      const row = await this.queue.lockForResend(organizationId, id, em);
      if (!row) throw new NotFoundError('Webhook delivery');
      if (row.status === 'delivered')
        throw new InvalidStateError(WEBHOOK_MESSAGES.alreadyDelivered);
      const now = this.clock.now();
      if (row.attemptCount >= row.maxRetries) {
        if (row.status !== 'failed') {
          const reason = row.errorMessage ?? 'no attempt succeeded';
          await this.queue.failExhausted(
            organizationId,
            id,
            WEBHOOK_MESSAGES.maxRetriesPrefix + reason,
            now,
            em,
          );
        }
        return false;
      }
      await this.queue.requeue(organizationId, id, now, em);
      return true;
    });
    // The answer is the delivery as the resend left it: read before waking the dispatchers,
    // which may have attempted it again within milliseconds.
    const view = await this.get(organizationId, id);
    if (send) this.events.wakeFor([id]);
    return view;
  }

  /** Sends `test.event` to this endpoint only, whatever it subscribes to. */
  async sendTest(organizationId: OrgId, endpointId: string): Promise<DeliveryView> {
    const endpoint = await this.endpoints.find(organizationId, endpointId);
    if (!endpoint.isActive) throw new ConflictError(WEBHOOK_MESSAGES.endpointInactive);
    // 201 with the delivery as created: read in its own transaction, before any wake-up.
    const view = await inTransaction(this.ds, async (em) => {
      const id = await this.events.emitToEndpoint(em, organizationId, endpointId, {
        type: 'test.event',
        data: { message: 'This is a test event', webhookEndpointId: endpointId },
      });
      if (!id) throw new ConflictError(WEBHOOK_MESSAGES.endpointInactive);
      const delivery = await this.log.get(organizationId, id, em);
      if (!delivery) throw new NotFoundError('Webhook delivery');
      return { delivery, attempts: [] };
    });
    this.events.wake();
    return view;
  }

  private async attemptsByDelivery(
    organizationId: OrgId,
    rows: DeliveryRow[],
  ): Promise<Map<string, WebhookAttempt[]>> {
    const attempts = await this.log.attempts(
      organizationId,
      rows.map((r) => r.id),
    );
    const out = new Map<string, WebhookAttempt[]>();
    for (const a of attempts) {
      const list = out.get(a.webhookDeliveryId) ?? [];
      list.push(a);
      out.set(a.webhookDeliveryId, list);
    }
    return out;
  }
}
