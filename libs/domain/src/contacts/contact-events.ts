// The single exit for contact events (§10: contact.created, contact.updated, contact.deleted,
// contact.unsubscribed, push.token_invalidated). Services call it after their transaction commits,
// from one method per change. The webhook event bus plugs in HERE (replace the body or provide a
// subclass as ContactEvents); until then the events are only logged at debug level, without any
// personal data.
import { Injectable, Logger } from '@nestjs/common';

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

  publish(event: ContactEvent): void {
    this.logger.debug({ msg: 'contact event', ...event });
  }
}
