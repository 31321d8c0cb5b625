import type { DataSource } from 'typeorm';
import type { WebhookEvents } from '../webhooks/webhook-events';
import { CONTACT_EVENT_RETRY_DELAYS_MS, ContactEvents } from './contact-events';
import type { ContactsRepository } from './contacts.repository';

/** A webhook bus whose store refuses the first `failures` emits, as during a database restart. */
function bus(failures: number) {
  const emitted: unknown[][] = [];
  let calls = 0;
  const webhooks = {
    emit: jest.fn(async (...args: unknown[]) => {
      calls++;
      if (calls <= failures) throw new Error('the database system is shutting down');
      emitted.push(args);
      return ['delivery-id'];
    }),
  } as unknown as WebhookEvents;
  return { webhooks, emitted };
}

const event = { type: 'contact.deleted' as const, organizationId: 'org-1', contactId: 'c-1' };

describe(ContactEvents.name, () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('raises an event the store refused once it answers again', async () => {
    const { webhooks, emitted } = bus(3);
    const events = new ContactEvents(webhooks, {} as ContactsRepository, {} as DataSource);
    await events.publish(event); // refused: the change itself is not failed
    expect(emitted).toHaveLength(0);
    expect(events.pendingRetries).toBe(1);
    for (const ms of CONTACT_EVENT_RETRY_DELAYS_MS.slice(0, 3))
      await jest.advanceTimersByTimeAsync(ms);
    expect(emitted).toEqual([['org-1', 'contact.deleted', { contact: { id: 'c-1' } }]]);
    expect(events.pendingRetries).toBe(0);
  });

  it('gives up after the last delay and keeps nothing pending', async () => {
    const { webhooks, emitted } = bus(Infinity);
    const events = new ContactEvents(webhooks, {} as ContactsRepository, {} as DataSource);
    await events.publish(event);
    for (const ms of CONTACT_EVENT_RETRY_DELAYS_MS) await jest.advanceTimersByTimeAsync(ms);
    expect(emitted).toHaveLength(0);
    expect(webhooks.emit).toHaveBeenCalledTimes(CONTACT_EVENT_RETRY_DELAYS_MS.length + 1);
    expect(events.pendingRetries).toBe(0);
  });

  it('drops waiting retries at shutdown', async () => {
    const { webhooks } = bus(Infinity);
    const events = new ContactEvents(webhooks, {} as ContactsRepository, {} as DataSource);
    await events.publish(event);
    events.onModuleDestroy();
    await jest.advanceTimersByTimeAsync(60_000);
    expect(webhooks.emit).toHaveBeenCalledTimes(1);
  });
});
