// Contact lists and memberships (§5): subscriberCount stays exact under any concurrency.
import { Injectable, Optional } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { Clock, SystemClock } from '../common/clock';
import type { OrgId } from '../common/org-id';
import { Page, PageRequest } from '../common/pagination';
import { generateCuid } from '../crypto/tokens';
import { inTransaction } from '../database/transaction';
import { ConflictError, NotFoundError } from '../errors/domain-errors';
import { Channel, ContactList, ListStatus } from './contact-list.entity';
import { ContactListMembership, MembershipStatus } from './contact-list-membership.entity';
import { ContactListsRepository, ListChanges } from './contact-lists.repository';
import { ContactTagsService } from './contact-tags.service';
import { ListView, MembershipView } from './contact-views';
import { ContactViewsRepository } from './contact-views.repository';
import { ContactsRepository } from './contacts.repository';
import { ContactEvents } from './contact.events';

export interface CreateListInput {
  name: string;
  description?: string | null;
  status?: ListStatus;
  preferredChannels?: Channel[];
  tags?: string[];
}
export type UpdateListInput = Partial<CreateListInput>;

@Injectable()
export class ContactListsService {
  private readonly clock: Clock;

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly repo: ContactListsRepository,
    private readonly tags: ContactTagsService,
    private readonly contacts: ContactsRepository,
    private readonly views: ContactViewsRepository,
    private readonly events: ContactEvents,
    @Optional() clock?: Clock,
  ) {
    this.clock = clock ?? new SystemClock();
  }

  private async listViews(orgId: OrgId, lists: ContactList[]): Promise<ListView[]> {
    const names = await this.tags.namesOfLists(
      orgId,
      lists.map((l) => l.id),
    );
    return lists.map((list) => ({ list, tags: names.get(list.id) ?? [] }));
  }

  async list(orgId: OrgId, page: PageRequest): Promise<Page<ListView>> {
    const [items, total] = await this.repo.page(orgId, page);
    return new Page(await this.listViews(orgId, items), total, page);
  }

  async get(orgId: OrgId, id: string): Promise<ListView> {
    const list = await this.repo.get(orgId, id);
    if (!list) throw new NotFoundError('Contact list');
    return (await this.listViews(orgId, [list]))[0];
  }

  /** The organization's oldest list with this name, any case; null when it has none. */
  idByName(orgId: OrgId, name: string): Promise<string | null> {
    return this.repo.idByName(orgId, name);
  }

  /** Whether the list is the organization's. */
  exists(orgId: OrgId, id: string): Promise<boolean> {
    return this.repo.exists(orgId, id);
  }

  async create(orgId: OrgId, input: CreateListInput): Promise<ListView> {
    const id = await inTransaction(this.ds, async (em) => {
      const listId = await this.repo.insert(
        orgId,
        {
          cuid: generateCuid(),
          name: input.name.trim(),
          description: input.description ?? null,
          status: input.status ?? 'active',
          preferredChannels: [...new Set<Channel>(input.preferredChannels ?? ['email'])],
        },
        em,
      );
      if (input.tags?.length) await this.tags.setListTags(em, orgId, listId, input.tags);
      return listId;
    });
    return this.get(orgId, id);
  }

  async update(orgId: OrgId, id: string, input: UpdateListInput): Promise<ListView> {
    await inTransaction(this.ds, async (em) => {
      await this.lockLists(em, orgId, [id]);
      const changes: ListChanges = {};
      if (input.name !== undefined) changes.name = input.name.trim();
      if (input.description !== undefined) changes.description = input.description;
      if (input.status !== undefined) changes.status = input.status;
      if (input.preferredChannels !== undefined)
        changes.preferredChannels = [...new Set<Channel>(input.preferredChannels)];
      await this.repo.update(orgId, id, changes, em);
      if (input.tags !== undefined) await this.tags.setListTags(em, orgId, id, input.tags);
    });
    return this.get(orgId, id);
  }

  /** Deletes the list and its memberships; the organization's default list cannot be deleted. */
  async delete(orgId: OrgId, id: string): Promise<void> {
    await inTransaction(this.ds, async (em) => {
      const [list] = await this.lockLists(em, orgId, [id]);
      if (list.is_default) throw new ConflictError('The default list cannot be deleted');
      await this.repo.delete(orgId, id, em);
    });
  }

  async members(
    orgId: OrgId,
    listId: string,
    page: PageRequest,
    status?: MembershipStatus,
  ): Promise<Page<MembershipView>> {
    const list = await this.repo.get(orgId, listId);
    if (!list) throw new NotFoundError('Contact list');
    const [items, total] = await Promise.all([
      this.repo.membersPage(orgId, listId, page, status),
      // The subscribed total is the maintained counter; others are counted on the list's index.
      status === 'subscribed'
        ? list.subscriberCount
        : this.repo.countMembers(orgId, listId, status),
    ]);
    const contacts = await this.views.load(
      orgId,
      items.map((m) => m.contactId),
      { channels: ['email'], tags: true },
    );
    const byId = new Map(contacts.map((c) => [c.contact.id, c]));
    return new Page(
      items.map((membership) => ({ membership, contact: byId.get(membership.contactId) })),
      total,
      page,
    );
  }

  /** Subscribes the contacts (idempotent; an unsubscribed membership is subscribed again). */
  async subscribe(
    orgId: OrgId,
    listId: string,
    contactIds: string[],
  ): Promise<ContactListMembership[]> {
    const ids = [...new Set(contactIds)];
    await inTransaction(this.ds, (em) => this.subscribeIn(em, orgId, [listId], ids));
    return this.repo.membershipsOf(orgId, listId, ids);
  }

  /**
   * Subscribes contacts to lists inside the caller's transaction (`subscribe`).
   * Lock order: the contacts (key share, so none is deleted meanwhile), then the lists by id.
   */
  async subscribeIn(
    em: EntityManager,
    orgId: OrgId,
    listIds: string[],
    contactIds: string[],
  ): Promise<number> {
    contactIds = [...new Set(contactIds)];
    if (!contactIds.length || !listIds.length) return 0;
    const found = await this.contacts.lock(orgId, contactIds, 'FOR KEY SHARE', em);
    if (found.length !== contactIds.length) throw new NotFoundError('Contact');
    await this.lockLists(em, orgId, listIds);
    let changed = 0;
    for (const listId of [...listIds].sort()) {
      changed += await this.repo.subscribe(orgId, listId, contactIds, this.clock.now(), em);
    }
    return changed;
  }

  async unsubscribe(
    orgId: OrgId,
    listId: string,
    contactId: string,
    reason: string | null,
  ): Promise<ContactListMembership> {
    await inTransaction(this.ds, async (em) => {
      await this.lockLists(em, orgId, [listId]);
      const at = this.clock.now();
      if (await this.repo.unsubscribe(orgId, listId, contactId, at, reason, em))
        await this.events.unsubscribed(em, orgId, contactId, listId);
    });
    this.events.wake();
    const membership = await this.repo.membership(orgId, listId, contactId);
    if (!membership) throw new NotFoundError('Membership');
    return membership;
  }

  async removeMember(orgId: OrgId, listId: string, contactId: string): Promise<void> {
    await inTransaction(this.ds, async (em) => {
      await this.lockLists(em, orgId, [listId]);
      if (!(await this.repo.removeMember(orgId, listId, contactId, em)))
        throw new NotFoundError('Membership');
    });
  }

  /**
   * Removes every membership of a contact about to be deleted, inside the caller's transaction,
   * which already holds the contact row FOR UPDATE (so nothing subscribes it meanwhile).
   */
  async removeContactIn(em: EntityManager, orgId: OrgId, contactId: string): Promise<void> {
    const lists = await this.repo.listIdsOf(orgId, contactId, em);
    if (!lists.length) return;
    await this.lockLists(em, orgId, lists);
    await this.repo.removeContact(orgId, contactId, em);
  }

  /** Locks the lists (by id order) and 404s unless every one is the organization's. */
  private async lockLists(em: EntityManager, orgId: OrgId, listIds: string[]) {
    const unique = [...new Set(listIds)];
    const rows = await this.repo.lock(orgId, unique, em);
    if (rows.length !== unique.length) throw new NotFoundError('Contact list');
    return rows;
  }

  /**
   * Creates the organization's default list inside the caller's transaction (the one creating
   * the organization).
   */
  async createDefaultIn(em: EntityManager, orgId: OrgId): Promise<void> {
    await this.repo.insertDefault(orgId, generateCuid(), em);
  }

  /**
   * Unsubscribes a contact from `listId`, or from every list when null, inside the caller's
   * transaction: each subscribed membership becomes `unsubscribed` with `reason` and its list's
   * subscriberCount drops with it. Locks the lists in id order first, as every membership change
   * does. Answers the ids of the lists whose membership changed; raises no event (the caller
   * announces the unsubscribe with its own reason).
   */
  async unsubscribeIn(
    em: EntityManager,
    orgId: OrgId,
    contactId: string,
    listId: string | null,
    reason: string,
    at: Date,
  ): Promise<string[]> {
    const locked = await this.repo.lockSubscribedLists(orgId, contactId, listId, em);
    if (!locked.length) return [];
    return this.repo.unsubscribeFromLists(orgId, contactId, locked, at, reason, em);
  }
}
