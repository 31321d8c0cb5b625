// The single exit for contact events (§10: contact.created, contact.updated, contact.deleted,
// contact.unsubscribed, push.token_invalidated). Services call it after their transaction commits,
// from one method per change; it hands the event to the webhook bus with the data shapes of
// docs/webhooks.md. A failure to raise the event never fails the change itself: the change is
// committed, so the event is retried in the background (a database restart right after the commit
// used to lose it: found by the resilience suite) and given up, logged, after about ten minutes.
import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { WebhookEvents } from '../webhooks/webhook-events';
import { ContactPush } from './contact-channels.entity';
import { toContactResponse } from './contact-views';
import { ContactsRepository, LOAD_EVERYTHING } from './contacts.repository';

export type ContactEventType =
  | 'contact.created'
  | 'contact.updated'
  | 'contact.deleted'
  | 'contact.unsubscribed'
  | 'push.token_invalidated';

export interface ContactEvent {
  type: ContactEventType;
  organizationId: string;
  contactId: string;
  /** Ids only (list, channel record), never addresses or numbers. */
  refs?: Record<string, string>;
}

/** Waits before each retry of an event the store refused: about ten minutes in all. */
export const CONTACT_EVENT_RETRY_DELAYS_MS = [
  1000, 2000, 4000, 8000, 15_000, 30_000, 30_000, 60_000, 60_000, 60_000, 60_000, 60_000, 60_000,
  60_000, 60_000, 60_000,
];

@Injectable()
export class ContactEvents implements OnModuleDestroy {
  private readonly logger = new Logger(ContactEvents.name);
  private readonly retries = new Set<NodeJS.Timeout>();

  constructor(
    private readonly webhooks: WebhookEvents,
    private readonly contacts: ContactsRepository,
    @InjectDataSource() private readonly ds: DataSource,
  ) {}

  async publish(event: ContactEvent): Promise<void> {
    try {
      await this.raise(event);
    } catch (err) {
      this.logger.warn({
        msg: 'could not raise contact event; retrying in the background',
        type: event.type,
        contactId: event.contactId,
        err: (err as Error).message,
      });
      this.retryLater(event, 0);
    }
  }

  /** Events still waiting for a retry (tests, shutdown). */
  get pendingRetries(): number {
    return this.retries.size;
  }

  onModuleDestroy(): void {
    if (this.retries.size) {
      this.logger.error({
        msg: 'contact events dropped at shutdown while waiting for a retry',
        count: this.retries.size,
      });
    }
    for (const t of this.retries) clearTimeout(t);
    this.retries.clear();
  }

  private async raise(event: ContactEvent): Promise<void> {
    const data = await this.dataOf(event);
    if (data) await this.webhooks.emit(event.organizationId, event.type, data);
  }

  private retryLater(event: ContactEvent, attempt: number): void {
    const delay = CONTACT_EVENT_RETRY_DELAYS_MS[attempt];
    if (delay === undefined) {
      this.logger.error({
        msg: 'could not raise contact event; gave up',
        type: event.type,
        contactId: event.contactId,
        attempts: attempt + 1,
      });
      return;
    }
    const timer = setTimeout(() => {
      this.retries.delete(timer);
      this.raise(event).then(
        () =>
          this.logger.log({
            msg: 'contact event raised after a retry',
            type: event.type,
            contactId: event.contactId,
            attempts: attempt + 2,
          }),
        () => this.retryLater(event, attempt + 1),
      );
    }, delay);
    timer.unref();
    this.retries.add(timer);
  }

  private async dataOf(event: ContactEvent): Promise<Record<string, unknown> | null> {
    const { organizationId: orgId, contactId } = event;
    switch (event.type) {
      case 'contact.deleted':
        return { contact: { id: contactId } };
      case 'contact.unsubscribed':
        return { contactId, contactListId: event.refs?.contactList ?? null };
      case 'push.token_invalidated': {
        const id = event.refs?.push;
        const push = id
          ? await this.ds.getRepository(ContactPush).findOneBy({ id, organizationId: orgId })
          : null;
        if (!push) return null;
        return {
          contactId,
          pushNotificationId: push.id,
          platform: push.platform,
          status: push.status,
          reason: 'update',
        };
      }
      default: {
        const [view] = await this.contacts.load(orgId, [contactId], LOAD_EVERYTHING);
        return view ? { contact: toContactResponse(view) } : null;
      }
    }
  }
}
