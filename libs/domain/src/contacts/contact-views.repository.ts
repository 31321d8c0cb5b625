// Contact reads: the batch loaders of contact views (GET /contacts is contact-page.repository.ts).
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, ObjectLiteral } from 'typeorm';
import type { OrgId } from '../common/org-id';
import { selectList, toEntities } from '../database/entity-rows';
import { query, raw, sql, Sql } from '../database/sql';
import { CHANNEL_INFO, CONTACT_CHANNELS, ContactChannel } from './contact-channels.entity';
import { ContactList } from './contact-list.entity';
import { ContactListMembership } from './contact-list-membership.entity';
import { ContactTag } from './contact-tag.entity';
import { ContactView } from './contact-views';
import { Contact } from './contact.entity';

export interface ContactLoadOptions {
  /** Channel arrays to preload. */
  channels?: readonly ContactChannel[];
  /** Tag names (Contact.tags). */
  tags?: boolean;
  /** Tag records (Contact.tagRecords). */
  tagRecords?: boolean;
  /** List memberships with their list (Contact.listMemberships). */
  memberships?: boolean;
}

export const LOAD_EVERYTHING: ContactLoadOptions = {
  channels: CONTACT_CHANNELS,
  tags: true,
  tagRecords: true,
  memberships: true,
};

@Injectable()
export class ContactViewsRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** Contacts of the organization by id, in the order of `ids` (unknown ids are skipped). */
  async load(
    orgId: OrgId,
    ids: string[],
    opts: ContactLoadOptions = {},
    db: DataSource | EntityManager = this.ds,
  ): Promise<ContactView[]> {
    if (!ids.length) return [];
    const rows = await query<Record<string, unknown>>(
      db,
      sql`SELECT ${raw(selectList(this.ds, Contact, 'c'))} FROM contacts c
           WHERE c.organization_id = ${orgId}::uuid AND c.id = ANY(${ids}::uuid[])`,
    );
    const byId = new Map(toEntities<Contact>(this.ds, Contact, rows).map((c) => [c.id, c]));
    const contacts = ids.map((id) => byId.get(id)).filter((c): c is Contact => Boolean(c));
    return this.complete(orgId, contacts, opts, db);
  }

  /**
   * Adds to already loaded contacts what `opts` asks for: one query per kind of data (in
   * parallel outside a transaction), never one query per contact.
   */
  private async complete(
    orgId: OrgId,
    contacts: Contact[],
    opts: ContactLoadOptions = {},
    db: DataSource | EntityManager = this.ds,
  ): Promise<ContactView[]> {
    if (!contacts.length) return [];
    const ids = contacts.map((c) => c.id);
    const wanted = opts.channels ?? [];
    const channels = this.channelsFor(contacts, wanted);
    const [channelRows, tagRows, memberships] = await readAll(db, [
      () =>
        readAll(
          db,
          channels.map((ch) => () => this.channelRecords(orgId, ids, ch, db)),
        ),
      () =>
        opts.tags || opts.tagRecords
          ? query<{ contact_id: string; tag_id: string; name: string }>(
              db,
              sql`SELECT c.id AS contact_id, t.id AS tag_id, t.name
                    FROM contacts c JOIN contact_tags t ON t.id = ANY(c.tag_ids)
                   WHERE c.organization_id = ${orgId}::uuid AND c.id = ANY(${ids}::uuid[])
                     AND t.organization_id = ${orgId}::uuid
                   ORDER BY lower(t.name), t.id`,
            )
          : Promise.resolve([]),
      () =>
        opts.memberships
          ? this.entities<ContactListMembership>(
              db,
              ContactListMembership,
              sql`SELECT * FROM contact_list_memberships
                   WHERE organization_id = ${orgId}::uuid AND contact_id = ANY(${ids}::uuid[])
                   ORDER BY created_at, id`,
            )
          : Promise.resolve([]),
    ] as const);
    const tagIds = [...new Set(tagRows.map((r) => r.tag_id))];
    const listIds = [...new Set(memberships.map((m) => m.contactListId))];
    const [tagRecords, lists] = await readAll(db, [
      () =>
        opts.tagRecords && tagIds.length
          ? this.entities<ContactTag>(
              db,
              ContactTag,
              // A tag embedded in a contact reports no count (§5).
              sql`SELECT *, 0 AS contact_count FROM contact_tags
                   WHERE organization_id = ${orgId}::uuid AND id = ANY(${tagIds}::uuid[])`,
            )
          : Promise.resolve([]),
      () =>
        listIds.length
          ? this.entities<ContactList>(
              db,
              ContactList,
              sql`SELECT * FROM contact_lists
                   WHERE organization_id = ${orgId}::uuid AND id = ANY(${listIds}::uuid[])`,
            )
          : Promise.resolve([]),
    ] as const);

    const byId = new Map<string, ContactView>();
    const views = contacts.map((contact) => {
      const view: ContactView = { contact, tags: [] };
      for (const ch of wanted) {
        (view as unknown as Record<string, unknown[]>)[CHANNEL_INFO[ch].key] = [];
      }
      if (opts.tagRecords) view.tagRecords = [];
      if (opts.memberships) view.listMemberships = [];
      byId.set(contact.id, view);
      return view;
    });
    channels.forEach((ch, i) => {
      for (const r of channelRows[i]) {
        const view = byId.get(r.contactId as string);
        if (view) (view as unknown as Record<string, unknown[]>)[CHANNEL_INFO[ch].key].push(r);
      }
    });
    const tagById = new Map(tagRecords.map((t) => [t.id, t]));
    for (const r of tagRows) {
      const view = byId.get(r.contact_id);
      if (!view) continue;
      if (opts.tags) view.tags.push(r.name);
      const tag = tagById.get(r.tag_id);
      if (opts.tagRecords && tag) view.tagRecords!.push(tag);
    }
    const listById = new Map(lists.map((l) => [l.id, l]));
    for (const m of memberships) {
      const list = listById.get(m.contactListId);
      byId.get(m.contactId)?.listMemberships?.push({
        membership: m,
        contactList: list ? { list, tags: [] } : undefined,
      });
    }
    return views;
  }

  private async entities<T extends ObjectLiteral>(
    db: DataSource | EntityManager,
    // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
    entity: Function,
    q: Sql,
  ): Promise<T[]> {
    return toEntities<T>(this.ds, entity, await query<Record<string, unknown>>(db, q));
  }

  private channelRecords(
    orgId: OrgId,
    ids: string[],
    channel: ContactChannel,
    db: DataSource | EntityManager,
  ): Promise<ObjectLiteral[]> {
    const { entity, table } = CHANNEL_INFO[channel];
    return this.entities(
      db,
      entity,
      sql`SELECT ${raw(selectList(this.ds, entity, 'r'))} FROM ${raw(table)} r
           WHERE r.organization_id = ${orgId}::uuid AND r.contact_id = ANY(${ids}::uuid[])
           ORDER BY r.created_at, r.id`,
    );
  }

  /**
   * Channels worth querying for these contacts: a channel no contact has a record on (by its
   * channel_mask bit) is not queried at all.
   */
  private channelsFor(contacts: Contact[], wanted: readonly ContactChannel[]): ContactChannel[] {
    const mask = contacts.reduce((m, c) => m | c.channelMask, 0);
    return wanted.filter((ch) => (mask & CHANNEL_INFO[ch].bit) !== 0);
  }
}

/**
 * Runs the reads in parallel through the pool, or one after the other on a transaction's own
 * connection (which takes one statement at a time).
 */
async function readAll<T extends readonly unknown[]>(
  db: DataSource | EntityManager,
  reads: { readonly [K in keyof T]: () => Promise<T[K]> },
): Promise<T> {
  const out: unknown[] = [];
  if (db instanceof DataSource) out.push(...(await Promise.all(reads.map((read) => read()))));
  else for (const read of reads) out.push(await read());
  return out as unknown as T;
}
