// The contact events (§10) and their payloads, emitted in the change's transaction through Events.
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { OrgId } from '../common/org-id';
import { Events } from '../events/events.service';
import type { ContactPush } from './contact-channels.entity';
import { contactPayload, ContactPayload } from './contact-payload';
import type { ContactView } from './contact-views';
import { ContactViewsRepository, LOAD_EVERYTHING } from './contact-views.repository';

/** The data of contact.created and contact.updated. */
export interface ContactChangedData {
  contact: ContactPayload;
}

@Injectable()
export class ContactEvents {
  constructor(
    private readonly events: Events,
    private readonly contacts: ContactViewsRepository,
  ) {}

  /**
   * contact.created or contact.updated: the contact as GET /contacts/{id} answers it, read in the
   * change's transaction after its writes. Returns that view (what the change answers).
   */
  async changed(
    em: EntityManager,
    orgId: OrgId,
    contactId: string,
    type: 'contact.created' | 'contact.updated',
  ): Promise<ContactView> {
    const [view] = await this.contacts.load(orgId, [contactId], LOAD_EVERYTHING, em);
    const data: ContactChangedData = { contact: contactPayload(view) };
    await this.events.emit(em, orgId, [{ type, data }]);
    return view;
  }

  deleted(em: EntityManager, orgId: OrgId, contactId: string): Promise<void> {
    return this.events.emit(em, orgId, [
      { type: 'contact.deleted', data: { contact: { id: contactId } } },
    ]);
  }

  unsubscribed(em: EntityManager, orgId: OrgId, contactId: string, listId: string) {
    return this.events.emit(em, orgId, [
      { type: 'contact.unsubscribed', data: { contactId, contactListId: listId } },
    ]);
  }

  /** A push registration that was active became expired or inactive. */
  pushTokenInvalidated(em: EntityManager, orgId: OrgId, push: ContactPush): Promise<void> {
    return this.events.emit(em, orgId, [
      {
        type: 'push.token_invalidated',
        data: {
          contactId: push.contactId,
          pushNotificationId: push.id,
          platform: push.platform,
          status: push.status,
          reason: 'update',
        },
      },
    ]);
  }

  /** After the commit of a change that emitted events: the webhook dispatchers are woken. */
  wake(): void {
    this.events.wake();
  }
}
