// The single exit for contact events (§10: contact.created, contact.updated, contact.deleted,
// contact.unsubscribed, push.token_invalidated). Services call it after their transaction commits,
// from one method per change; it hands the event to the webhook bus with the data shapes of
// docs/webhooks.md. A failure to raise the event is logged and never fails the change itself.
import { Injectable, Logger } from '@nestjs/common';
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

@Injectable()
export class ContactEvents {
  private readonly logger = new Logger(ContactEvents.name);

  constructor(
    private readonly webhooks: WebhookEvents,
    private readonly contacts: ContactsRepository,
    @InjectDataSource() private readonly ds: DataSource,
  ) {}

  async publish(event: ContactEvent): Promise<void> {
    try {
      const data = await this.dataOf(event);
      if (data) await this.webhooks.emit(event.organizationId, event.type, data);
    } catch (err) {
      this.logger.error({
        msg: 'could not raise contact event',
        type: event.type,
        contactId: event.contactId,
        err: (err as Error).message,
      });
    }
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
