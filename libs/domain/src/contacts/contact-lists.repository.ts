// SQL of contact lists and memberships (subscriber_count moves with each membership change).
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { OrgId } from '../common/org-id';
import { PageRequest, pageOffset } from '../common/pagination';
import { toEntities } from '../database/entity-rows';
import { empty, join, query, sql, Sql } from '../database/sql';
import { Channel, ContactList, ListStatus } from './contact-list.entity';
import { ContactListMembership, MembershipStatus } from './contact-list-membership.entity';

type Db = DataSource | EntityManager;

export interface NewList {
  cuid: string;
  name: string;
  description: string | null;
  status: ListStatus;
  preferredChannels: Channel[];
}

export interface ListChanges {
  name?: string;
  description?: string | null;
  status?: ListStatus;
  preferredChannels?: Channel[];
}

@Injectable()
export class ContactListsRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  private async lists(db: Db, q: Sql): Promise<ContactList[]> {
    return toEntities<ContactList>(this.ds, ContactList, await query(db, q));
  }

  private async memberships(db: Db, q: Sql): Promise<ContactListMembership[]> {
    return toEntities<ContactListMembership>(this.ds, ContactListMembership, await query(db, q));
  }

  /** A page of the organization's lists, newest first, and their total. */
  async page(orgId: OrgId, page: PageRequest): Promise<[ContactList[], number]> {
    const [items, [{ total }]] = await Promise.all([
      this.lists(
        this.ds,
        sql`SELECT * FROM contact_lists WHERE organization_id = ${orgId}::uuid
             ORDER BY created_at DESC, id DESC LIMIT ${page.limit} OFFSET ${pageOffset(page)}`,
      ),
      query<{ total: string }>(
        this.ds,
        sql`SELECT count(*) AS total FROM contact_lists WHERE organization_id = ${orgId}::uuid`,
      ),
    ]);
    return [items, Number(total)];
  }

  async get(orgId: OrgId, id: string): Promise<ContactList | null> {
    const [list] = await this.lists(
      this.ds,
      sql`SELECT * FROM contact_lists WHERE organization_id = ${orgId}::uuid AND id = ${id}::uuid`,
    );
    return list ?? null;
  }

  /** The organization's oldest list with this name, any case. */
  async idByName(orgId: OrgId, name: string): Promise<string | null> {
    const [row] = await query<{ id: string }>(
      this.ds,
      sql`SELECT id FROM contact_lists
           WHERE organization_id = ${orgId}::uuid AND lower(name) = lower(${name})
           ORDER BY created_at, id LIMIT 1`,
    );
    return row?.id ?? null;
  }

  async exists(orgId: OrgId, id: string): Promise<boolean> {
    const rows = await query(
      this.ds,
      sql`SELECT 1 FROM contact_lists WHERE organization_id = ${orgId}::uuid AND id = ${id}::uuid`,
    );
    return rows.length > 0;
  }

  /** Inserts a list (no subscriber, not the default); answers its id. */
  async insert(orgId: OrgId, list: NewList, em: EntityManager): Promise<string> {
    const [row] = await query<{ id: string }>(
      em,
      sql`INSERT INTO contact_lists (organization_id, cuid, name, description, status,
                                     preferred_channels, is_default, subscriber_count)
          VALUES (${orgId}::uuid, ${list.cuid}, ${list.name}, ${list.description}, ${list.status},
                  ${list.preferredChannels}::text[], false, 0)
          RETURNING id`,
    );
    return row.id;
  }

  async update(orgId: OrgId, id: string, changes: ListChanges, em: EntityManager) {
    const set: Sql[] = [];
    if (changes.name !== undefined) set.push(sql`name = ${changes.name}`);
    if (changes.description !== undefined) set.push(sql`description = ${changes.description}`);
    if (changes.status !== undefined) set.push(sql`status = ${changes.status}`);
    if (changes.preferredChannels !== undefined)
      set.push(sql`preferred_channels = ${changes.preferredChannels}::text[]`);
    if (!set.length) return;
    await query(
      em,
      sql`UPDATE contact_lists SET ${join(set, ', ')}, updated_at = now()
           WHERE organization_id = ${orgId}::uuid AND id = ${id}::uuid`,
    );
  }

  /** Deletes a list (its memberships and tags go by cascade). */
  async delete(orgId: OrgId, id: string, em: EntityManager): Promise<void> {
    await query(
      em,
      sql`DELETE FROM contact_lists WHERE organization_id = ${orgId}::uuid AND id = ${id}::uuid`,
    );
  }

  /** Locks the organization's lists among `ids` (FOR UPDATE, in id order); answers those found. */
  lock(
    orgId: OrgId,
    ids: string[],
    em: EntityManager,
  ): Promise<{ id: string; is_default: boolean }[]> {
    return query(
      em,
      sql`SELECT id, is_default FROM contact_lists
           WHERE organization_id = ${orgId}::uuid AND id = ANY(${ids}::uuid[])
           ORDER BY id FOR UPDATE`,
    );
  }

  /** A page of a list's memberships, newest first. */
  membersPage(
    orgId: OrgId,
    listId: string,
    page: PageRequest,
    status?: MembershipStatus,
  ): Promise<ContactListMembership[]> {
    return this.memberships(
      this.ds,
      sql`SELECT * FROM contact_list_memberships
           WHERE organization_id = ${orgId}::uuid AND contact_list_id = ${listId}::uuid
             ${status ? sql`AND status = ${status}` : empty}
           ORDER BY created_at DESC, id DESC LIMIT ${page.limit} OFFSET ${pageOffset(page)}`,
    );
  }

  /** How many memberships a list has (of one status, when given). */
  async countMembers(orgId: OrgId, listId: string, status?: MembershipStatus): Promise<number> {
    const [{ total }] = await query<{ total: string }>(
      this.ds,
      sql`SELECT count(*) AS total FROM contact_list_memberships
           WHERE organization_id = ${orgId}::uuid AND contact_list_id = ${listId}::uuid
             ${status ? sql`AND status = ${status}` : empty}`,
    );
    return Number(total);
  }

  /** The memberships of these contacts in one list, oldest first. */
  membershipsOf(orgId: OrgId, listId: string, contactIds: string[]) {
    return this.memberships(
      this.ds,
      sql`SELECT * FROM contact_list_memberships
           WHERE organization_id = ${orgId}::uuid AND contact_list_id = ${listId}::uuid
             AND contact_id = ANY(${contactIds}::uuid[])
           ORDER BY created_at, id`,
    );
  }

  /**
   * Subscribes contacts to one list (new memberships, and unsubscribed ones again), moving the
   * list's subscriber_count by the number that changed; answers that number.
   */
  async subscribe(
    orgId: OrgId,
    listId: string,
    contactIds: string[],
    at: Date,
    em: EntityManager,
  ): Promise<number> {
    const [row] = await query<{ changed: string }>(
      em,
      sql`WITH changed AS (
            INSERT INTO contact_list_memberships AS m
                   (organization_id, contact_id, contact_list_id, status, subscribed_at)
            SELECT ${orgId}::uuid, c, ${listId}::uuid, 'subscribed', ${at}::timestamptz
              FROM unnest(${contactIds}::uuid[]) AS c ORDER BY c
            ON CONFLICT (contact_list_id, contact_id) DO UPDATE
               SET status = 'subscribed', subscribed_at = EXCLUDED.subscribed_at,
                   unsubscribed_at = NULL, unsubscribe_reason = NULL, updated_at = now()
             WHERE m.status = 'unsubscribed' AND m.organization_id = ${orgId}::uuid
            RETURNING m.id
          ), counted AS (
            UPDATE contact_lists
               SET subscriber_count = subscriber_count + (SELECT count(*) FROM changed)
             WHERE organization_id = ${orgId}::uuid AND id = ${listId}::uuid
          )
          SELECT count(*) AS changed FROM changed`,
    );
    return Number(row?.changed ?? 0);
  }

  /** Unsubscribes one subscribed contact; answers whether it was subscribed. */
  async unsubscribe(
    orgId: OrgId,
    listId: string,
    contactId: string,
    at: Date,
    reason: string | null,
    em: EntityManager,
  ): Promise<boolean> {
    const rows = await query(
      em,
      sql`WITH changed AS (
            UPDATE contact_list_memberships
               SET status = 'unsubscribed', unsubscribed_at = ${at}::timestamptz,
                   unsubscribe_reason = ${reason}, updated_at = now()
             WHERE organization_id = ${orgId}::uuid AND contact_list_id = ${listId}::uuid
               AND contact_id = ${contactId}::uuid AND status = 'subscribed'
            RETURNING id
          ), counted AS (
            UPDATE contact_lists
               SET subscriber_count = subscriber_count - (SELECT count(*) FROM changed)
             WHERE organization_id = ${orgId}::uuid AND id = ${listId}::uuid
          )
          SELECT id FROM changed`,
    );
    return rows.length > 0;
  }

  async membership(
    orgId: OrgId,
    listId: string,
    contactId: string,
  ): Promise<ContactListMembership | null> {
    const [m] = await this.memberships(
      this.ds,
      sql`SELECT * FROM contact_list_memberships
           WHERE organization_id = ${orgId}::uuid AND contact_list_id = ${listId}::uuid
             AND contact_id = ${contactId}::uuid`,
    );
    return m ?? null;
  }

  /** Removes one membership; answers whether there was one. */
  async removeMember(orgId: OrgId, listId: string, contactId: string, em: EntityManager) {
    const rows = await query(
      em,
      sql`WITH gone AS (
            DELETE FROM contact_list_memberships
             WHERE organization_id = ${orgId}::uuid AND contact_list_id = ${listId}::uuid
               AND contact_id = ${contactId}::uuid
            RETURNING status
          ), counted AS (
            UPDATE contact_lists
               SET subscriber_count = subscriber_count
                                      - (SELECT count(*) FROM gone WHERE status = 'subscribed')
             WHERE organization_id = ${orgId}::uuid AND id = ${listId}::uuid
          )
          SELECT status FROM gone`,
    );
    return rows.length > 0;
  }

  /** The lists a contact has a membership of. */
  async listIdsOf(orgId: OrgId, contactId: string, em: EntityManager): Promise<string[]> {
    const rows = await query<{ contact_list_id: string }>(
      em,
      sql`SELECT DISTINCT contact_list_id FROM contact_list_memberships
           WHERE organization_id = ${orgId}::uuid AND contact_id = ${contactId}::uuid`,
    );
    return rows.map((r) => r.contact_list_id);
  }

  /** Removes every membership of a contact, moving each list's subscriber_count. */
  async removeContact(orgId: OrgId, contactId: string, em: EntityManager): Promise<void> {
    await query(
      em,
      sql`WITH gone AS (
            DELETE FROM contact_list_memberships
             WHERE organization_id = ${orgId}::uuid AND contact_id = ${contactId}::uuid
            RETURNING contact_list_id, status
          ), counted AS (
            UPDATE contact_lists l SET subscriber_count = l.subscriber_count - d.n
              FROM (SELECT contact_list_id, count(*) AS n FROM gone WHERE status = 'subscribed'
                     GROUP BY 1) d
             WHERE l.organization_id = ${orgId}::uuid AND l.id = d.contact_list_id
          )
          SELECT count(*) AS removed FROM gone`,
    );
  }

  /** Inserts the organization's default list ("Default list", email), which cannot be deleted. */
  async insertDefault(orgId: OrgId, cuid: string, em: EntityManager): Promise<void> {
    await query(
      em,
      sql`INSERT INTO contact_lists (organization_id, cuid, name, description, status,
                                     preferred_channels, is_default, subscriber_count)
          VALUES (${orgId}::uuid, ${cuid}, 'Default list', NULL, 'active', ARRAY['email']::text[],
                  true, 0)`,
    );
  }

  /**
   * Locks, in id order, the lists the contact is subscribed to: `listId` alone, or every one when
   * null. Answers their ids.
   */
  async lockSubscribedLists(
    orgId: OrgId,
    contactId: string,
    listId: string | null,
    em: EntityManager,
  ): Promise<string[]> {
    const rows = await query<{ id: string }>(
      em,
      sql`SELECT l.id FROM contact_lists l
           WHERE l.organization_id = ${orgId}::uuid
             AND l.id IN (SELECT m.contact_list_id FROM contact_list_memberships m
                           WHERE m.organization_id = ${orgId}::uuid
                             AND m.contact_id = ${contactId}::uuid AND m.status = 'subscribed'
                             AND (${listId}::uuid IS NULL OR m.contact_list_id = ${listId}::uuid))
           ORDER BY l.id
           FOR UPDATE`,
    );
    return rows.map((r) => r.id);
  }

  /**
   * Unsubscribes the contact from those of `listIds` it is subscribed to, moving each list's
   * subscriber_count; answers the ids of the lists whose membership changed, in id order.
   */
  async unsubscribeFromLists(
    orgId: OrgId,
    contactId: string,
    listIds: string[],
    at: Date,
    reason: string,
    em: EntityManager,
  ): Promise<string[]> {
    const changed = await query<{ contact_list_id: string }>(
      em,
      sql`WITH changed AS (
            UPDATE contact_list_memberships
               SET status = 'unsubscribed', unsubscribed_at = ${at}::timestamptz,
                   unsubscribe_reason = ${reason}, updated_at = now()
             WHERE organization_id = ${orgId}::uuid AND contact_id = ${contactId}::uuid
               AND contact_list_id = ANY(${listIds}::uuid[])
               AND status = 'subscribed'
            RETURNING contact_list_id
          ), counted AS (
            UPDATE contact_lists l SET subscriber_count = l.subscriber_count - d.n
              FROM (SELECT contact_list_id, count(*)::int AS n FROM changed GROUP BY 1) d
             WHERE l.id = d.contact_list_id AND l.organization_id = ${orgId}::uuid
          )
          SELECT contact_list_id FROM changed ORDER BY contact_list_id`,
    );
    return changed.map((r) => r.contact_list_id);
  }
}
