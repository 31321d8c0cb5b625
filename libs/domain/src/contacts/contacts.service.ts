// Contacts (§5): listing, reads, create / update / delete, each change with its event.
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { OrgId } from '../common/org-id';
import { Page } from '../common/pagination';
import { inTransaction } from '../database/transaction';
import { NotFoundError } from '../errors/domain-errors';
import type {
  EmailInput,
  ImessageInput,
  PushInput,
  SmsInput,
  TelegramInput,
  WhatsappInput,
} from './contact-channels.service';
import { CHANNEL_INFO, CONTACT_CHANNELS } from './contact-channels.entity';
import { ContactEvents } from './contact.events';
import { ContactListsService } from './contact-lists.service';
import {
  CONTACT_LIST_FILTERS,
  ContactListQueryInput,
  normaliseContactListQuery,
} from './contact-query';
import { ContactPageRepository } from './contact-page.repository';
import { ContactTagsService } from './contact-tags.service';
import { ListedContactView, ContactView } from './contact-views';
import type { ContactStatus } from './contact.entity';
import {
  ContactLoadOptions,
  ContactViewsRepository,
  LOAD_EVERYTHING,
} from './contact-views.repository';
import { trimmedOrNull } from './bulk-targets';
import { ChannelRecordsInput, ContactsBulkService } from './contacts-bulk.service';
import { ContactLock, ContactsRepository, FieldChanges } from './contacts.repository';

export interface ContactFields {
  firstName?: string | null;
  lastName?: string | null;
  displayName?: string | null;
  timezone?: string | null;
  language?: string | null;
  status?: ContactStatus | null;
  customFields?: Record<string, unknown> | null;
  notes?: string | null;
  lastActivityAt?: Date | null;
}

export interface CreateContactInput extends ContactFields {
  /** Tag names; missing tags are created. */
  tags?: string[];
  emails?: EmailInput[];
  smsNumbers?: SmsInput[];
  whatsappAccounts?: WhatsappInput[];
  telegramAccounts?: TelegramInput[];
  imessageAccounts?: ImessageInput[];
  pushNotifications?: PushInput[];
  /** Lists the contact is subscribed to. */
  listIds?: string[];
}

const FIELD_KEYS = [
  'firstName',
  'lastName',
  'displayName',
  'timezone',
  'language',
  'status',
  'customFields',
  'notes',
  'lastActivityAt',
] as const;

@Injectable()
export class ContactsService {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly repo: ContactsRepository,
    private readonly views: ContactViewsRepository,
    private readonly pages: ContactPageRepository,
    private readonly bulk: ContactsBulkService,
    private readonly tags: ContactTagsService,
    private readonly lists: ContactListsService,
    private readonly events: ContactEvents,
  ) {}

  /** GET /contacts: a page with channel records and tag names preloaded (one statement). */
  async list(orgId: OrgId, input: ContactListQueryInput): Promise<Page<ListedContactView>> {
    const q = normaliseContactListQuery(input);
    const { views, total } = await this.pages.listPage(orgId, q);
    return new Page(
      views,
      total,
      { page: q.page, limit: q.limit },
      { filters: CONTACT_LIST_FILTERS, appliedFilters: q },
    );
  }

  /** Contacts by id with what `opts` asks for, in order (segments and lists reuse this). */
  loadViews(orgId: OrgId, ids: string[], opts: ContactLoadOptions): Promise<ContactView[]> {
    return this.views.load(orgId, ids, opts);
  }

  /** One contact with every optional array loaded. */
  async get(orgId: OrgId, id: string): Promise<ContactView> {
    const [view] = await this.views.load(orgId, [id], LOAD_EVERYTHING);
    if (!view) throw new NotFoundError('Contact');
    return view;
  }

  /**
   * Creates one contact through the bulk create (a batch of one): its records by their channels'
   * rules (422 naming the field, 409 for an email that is another contact's), its tags (missing
   * ones created), its lists (404 unless each is the organization's), and contact.created.
   */
  async create(orgId: OrgId, input: CreateContactInput): Promise<ContactView> {
    const records: ChannelRecordsInput = {};
    for (const channel of CONTACT_CHANNELS) {
      const given = (input as Record<string, unknown>)[CHANNEL_INFO[channel].key];
      if (Array.isArray(given)) (records as Record<string, unknown>)[channel] = given;
    }
    const fields: ContactFields = {};
    for (const key of FIELD_KEYS) {
      if (input[key] !== undefined) (fields as Record<string, unknown>)[key] = input[key];
    }
    const [view] = await inTransaction(this.ds, (em) =>
      this.bulk.createMany(
        em,
        orgId,
        [
          {
            fields,
            emailAddress: input.emails?.[0]?.email ?? null,
            email: null,
            phones: {},
            records,
            tags: input.tags ?? [],
          },
        ],
        { duplicates: 'skip', tags: [], listIds: input.listIds ?? [], events: true },
      ),
    );
    this.events.wake();
    return view;
  }

  async update(orgId: OrgId, id: string, input: ContactFields): Promise<ContactView> {
    const changes: FieldChanges = {};
    for (const key of FIELD_KEYS) {
      if (input[key] !== undefined) (changes as Record<string, unknown>)[key] = input[key];
    }
    for (const key of ['firstName', 'lastName', 'displayName'] as const) {
      if (key in changes) changes[key] = trimmedOrNull(changes[key]);
    }
    return this.change(orgId, id, 'FOR NO KEY UPDATE', (em) =>
      this.repo.update(orgId, id, changes, em),
    );
  }

  /** Deletes the contact, its channel records, tags and memberships (subscriberCount adjusted). */
  async delete(orgId: OrgId, id: string): Promise<void> {
    await inTransaction(this.ds, async (em) => {
      await this.lock(em, orgId, id, 'FOR UPDATE');
      await this.lists.removeContactIn(em, orgId, id);
      await this.repo.delete(orgId, id, em);
      // contact.deleted is emitted here, and only here, with the delete.
      await this.events.deleted(em, orgId, id);
    });
    this.events.wake();
  }

  /** POST /contacts/{id}/tags: adds the named tags (created when missing). */
  addTags(orgId: OrgId, id: string, names: string[]): Promise<ContactView> {
    return this.change(orgId, id, 'FOR KEY SHARE', (em) => this.tags.assign(em, orgId, id, names));
  }

  /** DELETE /contacts/{id}/tags/{tagId}: removes one tag from the contact. */
  removeTag(orgId: OrgId, id: string, tagId: string): Promise<ContactView> {
    return this.change(orgId, id, 'FOR KEY SHARE', (em) =>
      this.tags.unassign(em, orgId, id, tagId),
    );
  }

  /** A change of one contact: locked, changed, contact.updated emitted; the contact after it. */
  private async change(
    orgId: OrgId,
    id: string,
    mode: ContactLock,
    work: (em: EntityManager) => Promise<void>,
  ): Promise<ContactView> {
    const view = await inTransaction(this.ds, async (em) => {
      await this.lock(em, orgId, id, mode);
      await work(em);
      return this.events.changed(em, orgId, id, 'contact.updated');
    });
    this.events.wake();
    return view;
  }

  private async lock(em: EntityManager, orgId: OrgId, id: string, mode: ContactLock) {
    if (!(await this.repo.lock(orgId, [id], mode, em)).length) throw new NotFoundError('Contact');
  }
}
