// Webhook deliveries as the API sees them, with fake repositories: the cursor list, the resend
// transitions of the spec and the test event of an endpoint.
import type { DataSource, EntityManager } from 'typeorm';
import type { Clock } from '../common/clock';
import { asOrgId } from '../common/org-id';
import type { Events, NewEvent } from '../events/events.service';
import type { WebhookAttempt } from './webhook-attempt.entity';
import type { DeliveryRow, WebhookDeliveryLogRepository } from './webhook-delivery-log.repository';
import { decodeCursor, encodeCursor, WebhookDeliveryService } from './webhook-delivery.service';
import type { WebhookEndpointService } from './webhook-endpoint.service';
import type { WebhookQueueRepository } from './webhook-queue.repository';
import type { ResendState } from './webhook-queue.types';

const ORG = asOrgId('00000000-0000-4000-8000-000000000001');
const ENDPOINT = '00000000-0000-4000-8000-0000000000e1';
const NOW = new Date('2030-06-01T12:00:00Z');
const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

function row(n: number): DeliveryRow {
  return {
    id: id(n),
    cursorAt: `2030-06-01T10:00:${String(59 - n).padStart(2, '0')}.000000Z`,
  } as DeliveryRow;
}

function attempt(deliveryId: string, attemptNumber: number): WebhookAttempt {
  return { webhookDeliveryId: deliveryId, attemptNumber } as WebhookAttempt;
}

function setup(opts: { rows?: DeliveryRow[]; resend?: ResendState | null; active?: boolean } = {}) {
  const em = { name: 'transaction' } as unknown as EntityManager;
  const order: string[] = [];
  const ds = {
    transaction: jest.fn((work: (em: EntityManager) => Promise<unknown>) => work(em)),
  } as unknown as DataSource;
  const log = {
    list: jest.fn(async (_org: string, _q: unknown, _cursor: unknown, limit: number) =>
      (opts.rows ?? []).slice(0, limit),
    ),
    get: jest.fn(async (_org: string, deliveryId: string, _em?: EntityManager) => {
      order.push('read');
      return { ...row(1), id: deliveryId } as DeliveryRow;
    }),
    attempts: jest.fn(async (_org: string, _ids: string[]): Promise<WebhookAttempt[]> => []),
  };
  const queue = {
    lockForResend: jest.fn(async (_org: string, _id: string, _em: EntityManager) =>
      opts.resend === undefined ? null : opts.resend,
    ),
    failExhausted: jest.fn(async () => undefined),
    requeue: jest.fn(async () => undefined),
  };
  const endpoints = {
    find: jest.fn(async (_org: string, endpointId: string) => ({
      id: endpointId,
      isActive: opts.active ?? true,
    })),
  };
  const events = {
    emitToEndpoint: jest.fn(
      async (_em: EntityManager, _org: string, _endpoint: string, _e: NewEvent) =>
        id(77) as string | null,
    ),
    wake: jest.fn(() => order.push('wake')),
    wakeFor: jest.fn((_ids: string[]) => order.push('wake')),
  };
  const clock: Clock = { now: () => NOW };
  const service = new WebhookDeliveryService(
    ds,
    log as unknown as WebhookDeliveryLogRepository,
    queue as unknown as WebhookQueueRepository,
    endpoints as unknown as WebhookEndpointService,
    events as unknown as Events,
    clock,
  );
  return { service, log, queue, endpoints, events, em, order };
}

describe('delivery cursors', () => {
  it('round-trips a position and refuses anything else with a 422 on cursor', () => {
    const position = { createdAt: '2030-06-01T10:00:00.123456Z', id: id(5) };
    expect(decodeCursor(encodeCursor(position))).toEqual(position);
    const bad = [
      'not-base64-at-all',
      Buffer.from(`2030-06-01T10:00:00Z|${id(5)}`).toString('base64url'),
      Buffer.from('2030-06-01T10:00:00.123456Z|not-a-uuid').toString('base64url'),
      Buffer.from('2030-06-01T10:00:00.123456Z').toString('base64url'),
    ];
    for (const raw of bad) {
      expect(() => decodeCursor(raw)).toThrow(
        expect.objectContaining({
          code: 'E_VALIDATION_ERROR',
          errors: [expect.objectContaining({ field: 'cursor' })],
        }),
      );
    }
  });
});

describe('WebhookDeliveryService.list', () => {
  it('reads one row more than the limit to know whether another page follows', async () => {
    const rows = [row(1), row(2), row(3)];
    const { service, log } = setup({ rows });
    const list = await service.list(ORG, { limit: 2 });
    expect(log.list).toHaveBeenCalledWith(ORG, { limit: 2 }, undefined, 3);
    expect(list.items.map((v) => v.delivery.id)).toEqual([id(1), id(2)]);
    expect(list.meta).toEqual({
      limit: 2,
      hasMore: true,
      nextCursor: encodeCursor({ createdAt: rows[1].cursorAt, id: id(2) }),
    });
    expect(list.items[0].attempts).toBeUndefined();
    expect(log.attempts).not.toHaveBeenCalled();
  });

  it('answers no next cursor on the last page, and passes the decoded cursor on', async () => {
    const { service, log } = setup({ rows: [row(4)] });
    const cursor = { createdAt: '2030-06-01T10:00:00.000001Z', id: id(3) };
    const list = await service.list(ORG, { limit: 2, cursor: encodeCursor(cursor) });
    expect(log.list).toHaveBeenCalledWith(ORG, expect.anything(), cursor, 3);
    expect(list.meta).toEqual({ limit: 2, hasMore: false, nextCursor: null });
  });

  it('refuses a forged cursor before reading', async () => {
    const { service, log } = setup();
    await expect(service.list(ORG, { limit: 2, cursor: 'Zm9v' })).rejects.toMatchObject({
      code: 'E_VALIDATION_ERROR',
    });
    expect(log.list).not.toHaveBeenCalled();
  });

  it('groups the attempts of the page by delivery when asked', async () => {
    const { service, log } = setup({ rows: [row(1), row(2)] });
    log.attempts.mockResolvedValueOnce([attempt(id(1), 1), attempt(id(1), 2)]);
    const list = await service.list(ORG, { limit: 5, includeAttempts: true });
    expect(log.attempts).toHaveBeenCalledWith(ORG, [id(1), id(2)]);
    expect(list.items.map((v) => v.attempts?.map((a) => a.attemptNumber))).toEqual([[1, 2], []]);
  });
});

describe('WebhookDeliveryService.get', () => {
  it('answers the delivery with its attempts, and 404 for one it cannot see', async () => {
    const { service, log } = setup();
    log.attempts.mockResolvedValueOnce([attempt(id(9), 1)]);
    const view = await service.get(ORG, id(9));
    expect(log.get).toHaveBeenCalledWith(ORG, id(9));
    expect(log.attempts).toHaveBeenCalledWith(ORG, [id(9)]);
    expect(view.attempts).toHaveLength(1);
    log.get.mockResolvedValueOnce(null as unknown as DeliveryRow);
    await expect(service.get(ORG, id(10))).rejects.toMatchObject({ code: 'E_ROW_NOT_FOUND' });
  });
});

describe('WebhookDeliveryService.retry', () => {
  const state = (fields: Partial<ResendState>): ResendState => ({
    status: 'pending',
    attemptCount: 1,
    maxRetries: 5,
    errorMessage: null,
    ...fields,
  });

  it('answers 404 for a delivery it cannot see', async () => {
    const { service, queue, events } = setup({ resend: null });
    await expect(service.retry(ORG, id(1))).rejects.toMatchObject({ code: 'E_ROW_NOT_FOUND' });
    expect(queue.lockForResend).toHaveBeenCalledWith(ORG, id(1), expect.anything());
    expect(events.wakeFor).not.toHaveBeenCalled();
  });

  it('refuses a delivered one (400 business rule), changing nothing', async () => {
    const { service, queue } = setup({ resend: state({ status: 'delivered' }) });
    await expect(service.retry(ORG, id(1))).rejects.toMatchObject({
      code: 'E_BUSINESS_RULE_VIOLATION',
      message: 'Cannot retry a delivery that has already been delivered',
    });
    expect(queue.requeue).not.toHaveBeenCalled();
    expect(queue.failExhausted).not.toHaveBeenCalled();
  });

  it('queues one with attempts left at once, and wakes the dispatchers after reading it', async () => {
    const { service, queue, events, em, order } = setup({
      resend: state({ status: 'failed', attemptCount: 4 }),
    });
    const view = await service.retry(ORG, id(1));
    expect(queue.requeue).toHaveBeenCalledWith(ORG, id(1), NOW, em);
    expect(events.wakeFor).toHaveBeenCalledWith([id(1)]);
    expect(order).toEqual(['read', 'wake']);
    expect(view.delivery.id).toBe(id(1));
  });

  it('fails an exhausted pending delivery with its last error, without sending it', async () => {
    const { service, queue, events, em } = setup({
      resend: state({ attemptCount: 5, errorMessage: 'HTTP 500' }),
    });
    await service.retry(ORG, id(1));
    expect(queue.failExhausted).toHaveBeenCalledWith(
      ORG,
      id(1),
      'Max retries exceeded. Last error: HTTP 500',
      NOW,
      em,
    );
    expect(queue.requeue).not.toHaveBeenCalled();
    expect(events.wakeFor).not.toHaveBeenCalled();
  });

  it('says why when no attempt recorded an error, and leaves an exhausted failed one as it is', async () => {
    const pending = setup({ resend: state({ attemptCount: 6, maxRetries: 5 }) });
    await pending.service.retry(ORG, id(1));
    expect(pending.queue.failExhausted).toHaveBeenCalledWith(
      ORG,
      id(1),
      'Max retries exceeded. Last error: no attempt succeeded',
      NOW,
      expect.anything(),
    );
    const failed = setup({ resend: state({ status: 'failed', attemptCount: 5 }) });
    await expect(failed.service.retry(ORG, id(1))).resolves.toHaveProperty('delivery');
    expect(failed.queue.failExhausted).not.toHaveBeenCalled();
    expect(failed.queue.requeue).not.toHaveBeenCalled();
  });
});

describe('WebhookDeliveryService.sendTest', () => {
  it('emits test.event to this endpoint only and answers the delivery before waking', async () => {
    const { service, events, log, em, order } = setup();
    const view = await service.sendTest(ORG, ENDPOINT);
    expect(events.emitToEndpoint).toHaveBeenCalledWith(em, ORG, ENDPOINT, {
      type: 'test.event',
      data: { message: 'This is a test event', webhookEndpointId: ENDPOINT },
    });
    expect(log.get).toHaveBeenCalledWith(ORG, id(77), em);
    expect(view).toEqual({ delivery: expect.objectContaining({ id: id(77) }), attempts: [] });
    expect(order).toEqual(['read', 'wake']);
  });

  it('refuses an inactive endpoint with 409 and emits nothing', async () => {
    const { service, events, endpoints } = setup({ active: false });
    await expect(service.sendTest(ORG, ENDPOINT)).rejects.toMatchObject({
      code: 'E_BUSINESS_RULE_VIOLATION',
      message: 'Webhook endpoint is inactive',
    });
    expect(endpoints.find).toHaveBeenCalledWith(ORG, ENDPOINT);
    expect(events.emitToEndpoint).not.toHaveBeenCalled();
    expect(events.wake).not.toHaveBeenCalled();
  });

  it('refuses with 409 when the endpoint became inactive before the delivery was stored', async () => {
    const { service, events } = setup();
    events.emitToEndpoint.mockResolvedValueOnce(null);
    await expect(service.sendTest(ORG, ENDPOINT)).rejects.toMatchObject({
      code: 'E_BUSINESS_RULE_VIOLATION',
    });
    expect(events.wake).not.toHaveBeenCalled();
  });
});
