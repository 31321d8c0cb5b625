// Contact reads: the SQL of GET /contacts (one count, one page of ids) and the batch loaders that
// preload channel records, tags and memberships for a set of contact ids in one query each.
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, In, ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { blindIndexCandidatesOf } from './blind-index';
import { CHANNEL_INFO, CONTACT_CHANNELS, ContactChannel } from './contact-channels.entity';
import { ContactList } from './contact-list.entity';
import { ContactListMembership } from './contact-list-membership.entity';
import { ContactListQuery, ContactSortField } from './contact-query';
import { ContactTag } from './contact-tag.entity';
import { ContactView } from './contact-views';
import { Contact, ENCRYPTED_DISPLAY_NAME_SQL } from './contact.entity';
import { normalisePhone } from './phone-number';

export interface SqlQuery {
  sql: string;
  params: unknown[];
}

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

const SORT_COLUMNS: Record<ContactSortField, { column: string; nullable: boolean }> = {
  firstName: { column: 'first_name', nullable: true },
  lastName: { column: 'last_name', nullable: true },
  createdAt: { column: 'created_at', nullable: false },
  updatedAt: { column: 'updated_at', nullable: false },
  lastActivityAt: { column: 'last_activity_at', nullable: true },
};

const PHONE_TABLES = ['contact_sms', 'contact_whatsapp', 'contact_telegram'];

export function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (m) => '\\' + m);
}

@Injectable()
export class ContactsRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /**
   * The two statements of one GET /contacts page. Without a search the total comes from
   * contact_counters (kept by triggers); the page walks the index of the sort field.
   */
  listQueries(orgId: string, q: ContactListQuery): { count: SqlQuery; ids: SqlQuery } {
    const params: unknown[] = [orgId];
    const p = (v: unknown) => {
      params.push(v);
      return `$${params.length}`;
    };
    const where = ['c.organization_id = $1'];
    if (q.status) where.push(`c.status = ${p(q.status)}`);
    if (q.channel) where.push(`(c.channel_mask & ${CHANNEL_INFO[q.channel].bit}) <> 0`);
    if (q.search) where.push(`c.id IN (${this.searchSql(q.search, p)})`);
    const whereSql = where.join(' AND ');

    let count: SqlQuery;
    if (q.search) {
      count = {
        sql: `SELECT count(*) AS total FROM contacts c WHERE ${whereSql}`,
        params: [...params],
      };
    } else {
      const cond = ['organization_id = $1'];
      const countParams: unknown[] = [orgId];
      if (q.status) {
        countParams.push(q.status);
        cond.push(`status = $2`);
      }
      if (q.channel) cond.push(`(channel_mask & ${CHANNEL_INFO[q.channel].bit}) <> 0`);
      count = {
        sql: `SELECT coalesce(sum(total), 0) AS total FROM contact_counters WHERE ${cond.join(' AND ')}`,
        params: countParams,
      };
    }

    const sort = SORT_COLUMNS[q.sortBy];
    const dir = q.sortOrder === 'asc' ? 'ASC' : 'DESC';
    const order = sort.nullable
      ? `c.${sort.column} ${dir} NULLS LAST, c.id ${dir}`
      : `c.${sort.column} ${dir}, c.id ${dir}`;
    const limit = p(q.limit);
    const offset = p((q.page - 1) * q.limit);
    return {
      count,
      ids: {
        sql: `SELECT c.id FROM contacts c WHERE ${whereSql} ORDER BY ${order} LIMIT ${limit} OFFSET ${offset}`,
        params,
      },
    };
  }

  /** Name fragment (trigram indexes) or exact email / phone number (blind indexes, every key). */
  private searchSql(search: string, p: (v: unknown) => string): string {
    const pattern = p(`%${escapeLike(search)}%`);
    // A display name stored encrypted (it carries an address) is not matched as text.
    const parts = [
      `SELECT n.id FROM contacts n WHERE n.organization_id = $1 AND (n.first_name ILIKE ${pattern} OR n.last_name ILIKE ${pattern} OR (n.display_name ILIKE ${pattern} AND NOT n.${ENCRYPTED_DISPLAY_NAME_SQL}))`,
    ];
    if (search.includes('@')) {
      parts.push(
        `SELECT e.contact_id FROM contact_emails e WHERE e.organization_id = $1 AND e.email_hash = ANY(${p(blindIndexCandidatesOf('email', search))})`,
      );
    }
    const phone = normalisePhone(search);
    if (phone) {
      const hashes = p(blindIndexCandidatesOf('phone', phone));
      for (const table of PHONE_TABLES) {
        parts.push(
          `SELECT t.contact_id FROM ${table} t WHERE t.organization_id = $1 AND t.phone_hash = ANY(${hashes})`,
        );
      }
    }
    return parts.join(' UNION ALL ');
  }

  async count(query: SqlQuery): Promise<number> {
    const rows: { total: string }[] = await this.ds.query(query.sql, query.params);
    return Number(rows[0]?.total ?? 0);
  }

  async ids(query: SqlQuery): Promise<string[]> {
    const rows: { id: string }[] = await this.ds.query(query.sql, query.params);
    return rows.map((r) => r.id);
  }

  private channelQuery(orgId: string, ids: string[], channel: ContactChannel) {
    return this.ds
      .getRepository<ObjectLiteral>(CHANNEL_INFO[channel].entity)
      .createQueryBuilder('r')
      .where('r.organizationId = :orgId', { orgId })
      .andWhere('r.contactId = ANY(:ids)', { ids })
      .orderBy('r.createdAt', 'ASC')
      .addOrderBy('r.id', 'ASC');
  }

  private contactsQuery(orgId: string, ids: string[]): SelectQueryBuilder<Contact> {
    return this.ds
      .getRepository(Contact)
      .createQueryBuilder('c')
      .where('c.organizationId = :orgId', { orgId })
      .andWhere('c.id = ANY(:ids)', { ids });
  }

  private tagNamesQuery(orgId: string, ids: string[]): SqlQuery {
    return {
      sql: `SELECT a.contact_id, t.id AS tag_id, t.name FROM contact_tag_assignments a
              JOIN contact_tags t ON t.id = a.tag_id
             WHERE a.organization_id = $1 AND a.contact_id = ANY($2::uuid[])
             ORDER BY lower(t.name), t.id`,
      params: [orgId, ids],
    };
  }

  /** Every statement `load` runs for these ids (the bench replays them straight through pg). */
  loaderQueries(orgId: string, ids: string[], opts: ContactLoadOptions): SqlQuery[] {
    const out: SqlQuery[] = [];
    const add = (qb: SelectQueryBuilder<ObjectLiteral>) => {
      const [sql, params] = qb.getQueryAndParameters();
      out.push({ sql, params });
    };
    add(this.contactsQuery(orgId, ids));
    for (const ch of opts.channels ?? []) add(this.channelQuery(orgId, ids, ch));
    if (opts.tags || opts.tagRecords) out.push(this.tagNamesQuery(orgId, ids));
    return out;
  }

  /**
   * Contacts of the organization with what `opts` asks for, in the order of `ids` (unknown ids
   * are skipped). One query per kind of data, run in parallel: never one query per contact.
   */
  async load(orgId: string, ids: string[], opts: ContactLoadOptions = {}): Promise<ContactView[]> {
    if (!ids.length) return [];
    const channels = opts.channels ?? [];
    const tagQuery = opts.tags || opts.tagRecords ? this.tagNamesQuery(orgId, ids) : null;
    const [contacts, channelRows, tagRows, memberships] = await Promise.all([
      this.contactsQuery(orgId, ids).getMany(),
      Promise.all(channels.map((ch) => this.channelQuery(orgId, ids, ch).getMany())),
      tagQuery
        ? (this.ds.query(tagQuery.sql, tagQuery.params) as Promise<
            { contact_id: string; tag_id: string; name: string }[]
          >)
        : Promise.resolve([]),
      opts.memberships
        ? this.ds.getRepository(ContactListMembership).find({
            where: { organizationId: orgId, contactId: In(ids) },
            order: { createdAt: 'ASC', id: 'ASC' },
          })
        : Promise.resolve([] as ContactListMembership[]),
    ]);

    const [tagRecords, lists] = await Promise.all([
      opts.tagRecords && tagRows.length
        ? this.ds.getRepository(ContactTag).findBy({
            organizationId: orgId,
            id: In([...new Set(tagRows.map((r) => r.tag_id))]),
          })
        : Promise.resolve([] as ContactTag[]),
      memberships.length
        ? this.ds.getRepository(ContactList).findBy({
            organizationId: orgId,
            id: In([...new Set(memberships.map((m) => m.contactListId))]),
          })
        : Promise.resolve([] as ContactList[]),
    ]);

    const byId = new Map<string, ContactView>();
    for (const c of contacts) {
      const view: ContactView = { contact: c, tags: [] };
      for (const ch of channels)
        (view as unknown as Record<string, unknown[]>)[CHANNEL_INFO[ch].key] = [];
      if (opts.tagRecords) view.tagRecords = [];
      if (opts.memberships) view.listMemberships = [];
      byId.set(c.id, view);
    }
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
    return ids.map((id) => byId.get(id)).filter((v): v is ContactView => Boolean(v));
  }
}
