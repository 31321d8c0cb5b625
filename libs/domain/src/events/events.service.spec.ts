// The event path with a fake repository and fake transactions: what `emit` stores, and when the
// webhook dispatchers are woken (after the outermost commit only, batched, never on a rollback).
import { Logger } from '@nestjs/common';
import type {
  DataSource,
  EntityManager,
  EntitySubscriberInterface,
  QueryRunner,
  TransactionCommitEvent,
  TransactionRollbackEvent,
} from 'typeorm';
import type { Clock } from '../common/clock';
import { asOrgId } from '../common/org-id';
import type { AppConfig } from '../config/app-config';
import type { EventRepository } from './event.repository';
import { Events, NewEvent, webhookWakeChannel } from './events.service';

const ORG = asOrgId('00000000-0000-4000-8000-000000000001');
const NOW = new Date('2030-06-01T12:00:00Z');

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

function setup() {
  const ds = { subscribers: [] as EntitySubscriberInterface[] } as unknown as DataSource;
  let next = 0;
  const repository = {
    insert: jest.fn(async (_em: EntityManager, _org: string, events: unknown[], _now: Date) =>
      events.map(() => `d${++next}`),
    ),
    insertForEndpoint: jest.fn(
      async (_em: EntityManager, _org: string, _endpoint: string, _e: unknown, _now: Date) =>
        `d${++next}` as string | null,
    ),
    notify: jest.fn(async (_ds: DataSource, _channel: string, _ids: string[]): Promise<void> => {}),
  };
  const clock: Clock = { now: () => NOW };
  const events = new Events(ds, repository as unknown as EventRepository, clock, {
    bullPrefix: 'specs',
  } as AppConfig);
  const subscriber = ds.subscribers[0];
  /** An EntityManager inside a transaction whose end the test decides. */
  const transaction = () => {
    const runner = { isTransactionActive: true } as QueryRunner;
    const em = { queryRunner: runner, connection: ds } as unknown as EntityManager;
    const end = (committed: boolean) => {
      (runner as { isTransactionActive: boolean }).isTransactionActive = false;
      if (committed)
        subscriber.afterTransactionCommit!({ queryRunner: runner } as TransactionCommitEvent);
      else
        subscriber.afterTransactionRollback!({ queryRunner: runner } as TransactionRollbackEvent);
    };
    return { em, runner, end };
  };
  const outside = { connection: ds } as unknown as EntityManager;
  const notified = () => repository.notify.mock.calls.map((c) => c[2]);
  return { events, repository, ds, transaction, outside, notified, subscriber };
}

/** Lets the notification under way (a chain of resolved promises) run to its end. */
const settle = () => new Promise((r) => setImmediate(r));

const sent: NewEvent = { type: 'email.sent', data: { messageId: 'm1' } };

beforeAll(() => Logger.overrideLogger(false));
afterAll(() => Logger.overrideLogger(true));

describe('webhookWakeChannel', () => {
  it('is a short identifier of its own per Bull prefix', () => {
    const a = webhookWakeChannel('bull');
    expect(a).toMatch(/^webhooks_[0-9a-f]{20}$/);
    expect(webhookWakeChannel('bull')).toBe(a);
    expect(webhookWakeChannel('bull-test-7')).not.toBe(a);
  });
});

describe('Events.emit', () => {
  it('stores the events with the organization, stamping the ones without a time', async () => {
    const { events, repository, outside } = setup();
    const at = new Date('2030-05-31T00:00:00Z');
    await events.emit(outside, ORG, [sent, { type: 'contact.deleted', data: {}, occurredAt: at }]);
    expect(repository.insert).toHaveBeenCalledWith(
      outside,
      ORG,
      [
        { type: 'email.sent', data: { messageId: 'm1' }, occurredAt: NOW },
        { type: 'contact.deleted', data: {}, occurredAt: at },
      ],
      NOW,
    );
  });

  it('stores nothing for no events, and refuses an unknown type before storing any', async () => {
    const { events, repository, outside } = setup();
    await events.emit(outside, ORG, []);
    await expect(
      events.emit(outside, ORG, [
        sent,
        { type: 'email.exploded', data: {} } as unknown as NewEvent,
      ]),
    ).rejects.toThrow('Unknown event type: email.exploded');
    expect(repository.insert).not.toHaveBeenCalled();
  });
});

describe('Events wake-ups', () => {
  it('wakes the dispatchers once the transaction that stored the deliveries commits', async () => {
    const { events, repository, transaction, notified } = setup();
    const tx = transaction();
    await events.emit(tx.em, ORG, [sent, sent]);
    events.wake();
    await settle();
    expect(repository.notify).not.toHaveBeenCalled();
    tx.end(true);
    events.wake();
    await settle();
    expect(notified()).toEqual([['d1', 'd2']]);
    expect(repository.notify).toHaveBeenCalledWith(expect.anything(), webhookWakeChannel('specs'), [
      'd1',
      'd2',
    ]);
  });

  it('forgets the deliveries of a transaction rolled back', async () => {
    const { events, repository, transaction } = setup();
    const tx = transaction();
    await events.emit(tx.em, ORG, [sent]);
    tx.end(false);
    events.wake();
    await settle();
    expect(repository.notify).not.toHaveBeenCalled();
  });

  it('keeps the ids pending when only a savepoint ends', async () => {
    const { events, transaction, subscriber, notified } = setup();
    const tx = transaction();
    await events.emit(tx.em, ORG, [sent]);
    // A savepoint released or rolled back: the transaction is still active.
    subscriber.afterTransactionRollback!({ queryRunner: tx.runner } as TransactionRollbackEvent);
    subscriber.afterTransactionCommit!({ queryRunner: tx.runner } as TransactionCommitEvent);
    events.wake();
    await settle();
    expect(notified()).toEqual([]);
    tx.end(true);
    events.wake();
    await settle();
    expect(notified()).toEqual([['d1']]);
  });

  it('announces ids stored outside a transaction at the next wake', async () => {
    const { events, outside, notified } = setup();
    await events.emit(outside, ORG, [sent]);
    expect(notified()).toEqual([]);
    events.wake();
    await settle();
    expect(notified()).toEqual([['d1']]);
    // Nothing new: no second notification.
    events.wake();
    await settle();
    expect(notified()).toEqual([['d1']]);
  });

  it('sends the wake-ups asked for during a notification together in the next one', async () => {
    const { events, repository, notified } = setup();
    const first = deferred();
    repository.notify.mockImplementationOnce(() => first.promise);
    events.wakeFor(['a']);
    events.wakeFor(['b']);
    events.wakeFor(['c']);
    expect(notified()).toEqual([['a']]);
    first.resolve();
    await settle();
    expect(notified()).toEqual([['a'], ['b', 'c']]);
  });

  it('never throws when the notification fails, and a later wake still notifies', async () => {
    const { events, repository, notified } = setup();
    const warn = jest.spyOn((events as unknown as { logger: Logger }).logger, 'warn');
    repository.notify.mockRejectedValueOnce(new Error('connection reset'));
    expect(() => events.wakeFor(['a'])).not.toThrow();
    await settle();
    expect(warn).toHaveBeenCalledWith(
      expect.objectContaining({ count: 1, err: 'connection reset' }),
    );
    events.wakeFor(['b']);
    await settle();
    expect(notified()).toEqual([['a'], ['b']]);
  });

  it('waits for the notification under way before the application shuts down', async () => {
    const { events, repository } = setup();
    const first = deferred();
    repository.notify.mockImplementationOnce(() => first.promise);
    events.wakeFor(['a']);
    let done = false;
    const shutdown = events.beforeApplicationShutdown().then(() => (done = true));
    await settle();
    expect(done).toBe(false);
    first.resolve();
    await shutdown;
    expect(done).toBe(true);
  });

  it('announces committed ids at once when 15,000 wait', async () => {
    const { events, repository, outside, notified } = setup();
    repository.insert.mockResolvedValueOnce(Array.from({ length: 14_999 }, (_, i) => `x${i}`));
    await events.emit(outside, ORG, [sent]);
    await settle();
    expect(notified()).toEqual([]);
    await events.emit(outside, ORG, [sent]);
    await settle();
    expect(notified()).toHaveLength(1);
    expect(notified()[0]).toHaveLength(15_000);
  });
});

describe('Events.emitToEndpoint', () => {
  it('stores one delivery for the endpoint and answers its id, or null without a wake', async () => {
    const { events, repository, outside, notified } = setup();
    const id = await events.emitToEndpoint(outside, ORG, 'ep-1', {
      type: 'test.event',
      data: { message: 'hi' },
    });
    expect(id).toBe('d1');
    expect(repository.insertForEndpoint).toHaveBeenCalledWith(
      outside,
      ORG,
      'ep-1',
      { type: 'test.event', data: { message: 'hi' }, occurredAt: NOW },
      NOW,
    );
    repository.insertForEndpoint.mockResolvedValueOnce(null);
    await expect(
      events.emitToEndpoint(outside, ORG, 'ep-2', { type: 'test.event', data: {} }),
    ).resolves.toBeNull();
    events.wake();
    await settle();
    expect(notified()).toEqual([['d1']]);
  });
});
