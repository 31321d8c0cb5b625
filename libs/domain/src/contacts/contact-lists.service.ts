// Contact lists and memberships (§5). subscriberCount moves in the same transaction as the
// membership, by the number of real status transitions, with the list row locked: it stays equal
// to count(*) of subscribed memberships under any concurrency.
import { Injectable, Optional } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { Clock, SystemClock } from '../common/clock';
import { Page, PageRequest, pageOffset } from '../common/pagination';
import { generateCuid } from '../crypto/tokens';
import { ConflictError, NotFoundError } from '../errors/domain-errors';
import { Channel, ContactList, ListStatus } from './contact-list.entity';
import { ContactListMembership, MembershipStatus } from './contact-list-membership.entity';
import { ContactEvents } from './contact.events';
import { ContactTagsService } from './contact-tags.service';
import { ListView, MembershipView } from './contact-views';
import { ContactViewsRepository } from './contact-views.repository';
import { inTransaction } from '../database/transaction';

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
    private readonly tags: ContactTagsService,
    private readonly contacts: ContactViewsRepository,
    private readonly events: ContactEvents,
    @Optional() clock?: Clock,
  ) {
    this.clock = clock ?? new SystemClock();
  }

  private async views(orgId: string, lists: ContactList[]): Promise<ListView[]> {
    const names = await this.tags.namesOfLists(
      orgId,
      lists.map((l) => l.id),
    );
    return lists.map((list) => ({ list, tags: names.get(list.id) ?? [] }));
  }

  async list(orgId: string, page: PageRequest): Promise<Page<ListView>> {
    const [items, total] = await this.ds.getRepository(ContactList).findAndCount({
      where: { organizationId: orgId },
      order: { createdAt: 'DESC', id: 'DESC' },
      skip: pageOffset(page),
      take: page.limit,
    });
    return new Page(await this.views(orgId, items), total, page);
  }

  async get(orgId: string, id: string): Promise<ListView> {
    const list = await this.ds.getRepository(ContactList).findOneBy({ id, organizationId: orgId });
    if (!list) throw new NotFoundError('Contact list');
    return (await this.views(orgId, [list]))[0];
  }

  async create(orgId: string, input: CreateListInput): Promise<ListView> {
    const id = await inTransaction(this.ds, async (em) => {
      const { identifiers } = await em.getRepository(ContactList).insert({
        organizationId: orgId,
        cuid: generateCuid(),
        name: input.name.trim(),
        description: input.description ?? null,
        status: input.status ?? 'active',
        preferredChannels: [...new Set<Channel>(input.preferredChannels ?? ['email'])],
        isDefault: false,
        subscriberCount: 0,
      });
      const listId = identifiers[0].id as string;
      if (input.tags?.length) await this.tags.setListTags(em, orgId, listId, input.tags);
      return listId;
    });
    return this.get(orgId, id);
  }

  async update(orgId: string, id: string, input: UpdateListInput): Promise<ListView> {
    await inTransaction(this.ds, async (em) => {
      await this.lockLists(em, orgId, [id]);
      const patch: Partial<ContactList> = {};
      if (input.name !== undefined) patch.name = input.name.trim();
      if (input.description !== undefined) patch.description = input.description;
      if (input.status !== undefined) patch.status = input.status;
      if (input.preferredChannels !== undefined)
        patch.preferredChannels = [...new Set<Channel>(input.preferredChannels)];
      if (Object.keys(patch).length) await em.getRepository(ContactList).update({ id }, patch);
      if (input.tags !== undefined) await this.tags.setListTags(em, orgId, id, input.tags);
    });
    return this.get(orgId, id);
  }

  /** Deletes the list and its memberships; the organization's default list cannot be deleted. */
  async delete(orgId: string, id: string): Promise<void> {
    await inTransaction(this.ds, async (em) => {
      const [list] = await this.lockLists(em, orgId, [id]);
      if (list.is_default) throw new ConflictError('The default list cannot be deleted');
      await em.query(`DELETE FROM contact_lists WHERE id = $1`, [id]);
    });
  }

  async members(
    orgId: string,
    listId: string,
    page: PageRequest,
    status?: MembershipStatus,
  ): Promise<Page<MembershipView>> {
    const list = await this.ds
      .getRepository(ContactList)
      .findOneBy({ id: listId, organizationId: orgId });
    if (!list) throw new NotFoundError('Contact list');
    const where = { contactListId: listId, organizationId: orgId, ...(status ? { status } : {}) };
    const repo = this.ds.getRepository(ContactListMembership);
    const [items, total] = await Promise.all([
      repo.find({
        where,
        order: { createdAt: 'DESC', id: 'DESC' },
        skip: pageOffset(page),
        take: page.limit,
      }),
      // The subscribed total is the maintained counter; others are counted on the list's index.
      status === 'subscribed' ? Promise.resolve(list.subscriberCount) : repo.countBy(where),
    ]);
    const contacts = await this.contacts.load(
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
    orgId: string,
    listId: string,
    contactIds: string[],
  ): Promise<ContactListMembership[]> {
    const ids = [...new Set(contactIds)];
    await inTransaction(this.ds, (em) => this.subscribeIn(em, orgId, [listId], ids));
    return this.ds
      .getRepository(ContactListMembership)
      .createQueryBuilder('m')
      .where('m.contactListId = :listId', { listId })
      .andWhere('m.contactId = ANY(:ids)', { ids })
      .orderBy('m.createdAt', 'ASC')
      .addOrderBy('m.id', 'ASC')
      .getMany();
  }

  /**
   * Subscribes contacts to lists inside the caller's transaction (contact creation, imports).
   * Lock order: the contacts (key share, so none is deleted meanwhile), then the lists by id.
   */
  async subscribeIn(
    em: EntityManager,
    orgId: string,
    listIds: string[],
    contactIds: string[],
    /** The caller already holds the contacts (created or locked in this transaction): an import. */
    opts: { contactsLocked?: boolean } = {},
  ): Promise<number> {
    contactIds = [...new Set(contactIds)];
    if (!contactIds.length || !listIds.length) return 0;
    if (!opts.contactsLocked) {
      const found: { id: string }[] = await em.query(
        `SELECT id FROM contacts WHERE organization_id = $1 AND id = ANY($2::uuid[])
          ORDER BY id FOR KEY SHARE`,
        [orgId, contactIds],
      );
      if (found.length !== contactIds.length) throw new NotFoundError('Contact');
    }
    await this.lockLists(em, orgId, listIds);
    let changed = 0;
    for (const listId of [...listIds].sort()) {
      const rows: { changed: string }[] = await em.query(
        `WITH changed AS (
           INSERT INTO contact_list_memberships AS m
                  (organization_id, contact_id, contact_list_id, status, subscribed_at)
           SELECT $1, c, $2, 'subscribed', $4 FROM unnest($3::uuid[]) AS c ORDER BY c
           ON CONFLICT (contact_list_id, contact_id) DO UPDATE
              SET status = 'subscribed', subscribed_at = EXCLUDED.subscribed_at,
                  unsubscribed_at = NULL, unsubscribe_reason = NULL, updated_at = now()
            WHERE m.status = 'unsubscribed'
           RETURNING m.id
         ), counted AS (
           UPDATE contact_lists
              SET subscriber_count = subscriber_count + (SELECT count(*) FROM changed)
            WHERE id = $2
         )
         SELECT count(*) AS changed FROM changed`,
        [orgId, listId, contactIds, this.clock.now()],
      );
      changed += Number(rows[0]?.changed ?? 0);
    }
    return changed;
  }

  async unsubscribe(
    orgId: string,
    listId: string,
    contactId: string,
    reason: string | null,
  ): Promise<ContactListMembership> {
    await inTransaction(this.ds, async (em) => {
      await this.lockLists(em, orgId, [listId]);
      const rows: { id: string }[] = await em.query(
        `WITH changed AS (
           UPDATE contact_list_memberships
              SET status = 'unsubscribed', unsubscribed_at = $3, unsubscribe_reason = $4,
                  updated_at = now()
            WHERE contact_list_id = $1 AND contact_id = $2 AND status = 'subscribed'
           RETURNING id
         ), counted AS (
           UPDATE contact_lists SET subscriber_count = subscriber_count - (SELECT count(*) FROM changed)
            WHERE id = $1
         )
         SELECT id FROM changed`,
        [listId, contactId, this.clock.now(), reason],
      );
      if (rows.length) await this.events.unsubscribed(em, orgId, contactId, listId);
    });
    this.events.wake();
    const membership = await this.ds
      .getRepository(ContactListMembership)
      .findOneBy({ contactListId: listId, contactId, organizationId: orgId });
    if (!membership) throw new NotFoundError('Membership');
    return membership;
  }

  async removeMember(orgId: string, listId: string, contactId: string): Promise<void> {
    await inTransaction(this.ds, async (em) => {
      await this.lockLists(em, orgId, [listId]);
      const rows: { status: MembershipStatus }[] = await em.query(
        `WITH gone AS (
           DELETE FROM contact_list_memberships WHERE contact_list_id = $1 AND contact_id = $2
           RETURNING status
         ), counted AS (
           UPDATE contact_lists
              SET subscriber_count = subscriber_count - (SELECT count(*) FROM gone WHERE status = 'subscribed')
            WHERE id = $1
         )
         SELECT status FROM gone`,
        [listId, contactId],
      );
      if (!rows.length) throw new NotFoundError('Membership');
    });
  }

  /**
   * Removes every membership of a contact about to be deleted, inside the caller's transaction,
   * which already holds the contact row FOR UPDATE (so nothing subscribes it meanwhile).
   */
  async removeContactIn(em: EntityManager, orgId: string, contactId: string): Promise<void> {
    const lists: { contact_list_id: string }[] = await em.query(
      `SELECT DISTINCT contact_list_id FROM contact_list_memberships WHERE contact_id = $1`,
      [contactId],
    );
    if (!lists.length) return;
    await this.lockLists(
      em,
      orgId,
      lists.map((l) => l.contact_list_id),
    );
    await em.query(
      `WITH gone AS (
         DELETE FROM contact_list_memberships WHERE contact_id = $1
         RETURNING contact_list_id, status
       ), counted AS (
         UPDATE contact_lists l SET subscriber_count = l.subscriber_count - d.n
           FROM (SELECT contact_list_id, count(*) AS n FROM gone WHERE status = 'subscribed'
                  GROUP BY 1) d
          WHERE l.id = d.contact_list_id
       )
       SELECT count(*) AS removed FROM gone`,
      [contactId],
    );
  }

  /** Locks the lists (by id order) and 404s unless every one is the organization's. */
  private async lockLists(
    em: EntityManager,
    orgId: string,
    listIds: string[],
  ): Promise<{ id: string; is_default: boolean }[]> {
    const unique = [...new Set(listIds)];
    const rows: { id: string; is_default: boolean }[] = await em.query(
      `SELECT id, is_default FROM contact_lists WHERE organization_id = $1 AND id = ANY($2::uuid[])
        ORDER BY id FOR UPDATE`,
      [orgId, unique],
    );
    if (rows.length !== unique.length) throw new NotFoundError('Contact list');
    return rows;
  }
}
