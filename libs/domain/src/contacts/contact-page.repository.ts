// The GET /contacts page: one statement per page, with its contacts' channel records and tag names.
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { OrgId } from '../common/org-id';
import { selectList, toListedEntities } from '../database/entity-rows';
import { escapeLike, join, query, raw, sql, Sql } from '../database/sql';
import { blindIndexCandidatesOf } from './blind-index';
import { CHANNEL_INFO, CONTACT_CHANNELS, ContactChannel } from './contact-channels.entity';
import { ContactListQuery, ContactSortField } from './contact-query';
import { ListedContactView } from './contact-views';
import { Contact } from './contact.entity';
import { normalisePhone } from './phone-number';

// Nullable fields sort NULLs last in both directions, from one index each (listQueries).
const SORT_COLUMNS: Record<ContactSortField, { column: string; nullable: boolean }> = {
  firstName: { column: 'first_name', nullable: true },
  lastName: { column: 'last_name', nullable: true },
  createdAt: { column: 'created_at', nullable: false },
  updatedAt: { column: 'updated_at', nullable: false },
  lastActivityAt: { column: 'last_activity_at', nullable: true },
};

const PHONE_TABLES = ['contact_sms', 'contact_whatsapp', 'contact_telegram'];

/**
 * Page statements are named (sql.ts `prepare`): each connection parses and analyses a text once
 * instead of on every request. Planning stays per run (plan_cache_mode auto): without a search the
 * generic plan (limit and offset unknown) is estimated far dearer than any run's own plan, so it
 * is never chosen; with a search it reads the same indexes. A named text holds its parsed form and
 * generic plan in the memory of each connection that ran it, so at most this many texts per
 * process get a name, in the order they first run; a further combination of sort and filters runs
 * unnamed.
 */
const MAX_NAMED_PAGES = 8;
const namedPages = new Map<string, string>();

/** The name of a page statement's text, or undefined once MAX_NAMED_PAGES texts have names. */
function pageStatementName(text: string): string | undefined {
  let name = namedPages.get(text);
  if (name === undefined && namedPages.size < MAX_NAMED_PAGES) {
    name = `contacts_page_${namedPages.size}`;
    namedPages.set(text, name);
  }
  return name;
}
@Injectable()
export class ContactPageRepository {
  /** The parts of a page statement that depend on the entities only (fixedParts). */
  private readonly fixed: { columns: Sql; embedded: Sql };

  constructor(@InjectDataSource() private readonly ds: DataSource) {
    this.fixed = this.fixedParts();
  }

  /**
   * The SQL of one GET /contacts page. `page` is one statement: per contact of the page, the
   * total (`total`), the contact (`contact`), its channel records as a JSON array per channel
   * (`ch_<channel>`, only for the channels its channel_mask has) and its tag names (`tag_names`).
   * The total comes from contact_counters (kept by triggers) unless there is a search, else a
   * window count over the matches; the page walks the sort field's index and the records and tags
   * are looked up for the page's rows only. `count` is the same total on its own, needed only when
   * the page is empty (past the last page).
   */
  listQueries(orgId: OrgId, q: ContactListQuery): { page: Sql; count: Sql } {
    const where = [sql`c.organization_id = ${orgId}::uuid`];
    const cond = [sql`cc.organization_id = ${orgId}::uuid`];
    if (q.status) {
      where.push(sql`c.status = ${q.status}`);
      cond.push(sql`cc.status = ${q.status}`);
    }
    if (q.channel) {
      const bit = CHANNEL_INFO[q.channel].bit;
      where.push(sql`(c.channel_mask & ${bit}::smallint) <> 0`);
      cond.push(sql`(cc.channel_mask & ${bit}::smallint) <> 0`);
    }
    // The matches first, as an array. With `IN`, for a fragment common to many contacts (a first
    // name) the planner walks the sort index over every contact of the organization and probes
    // each one, since the page's total needs every match.
    if (q.search) where.push(sql`c.id = ANY(ARRAY(${this.searchQuery(orgId, q.search)}))`);
    const matching = join(where, ' AND ');

    const count = q.search
      ? sql`SELECT count(*) AS total FROM contacts c WHERE ${matching}`
      : sql`SELECT coalesce(sum(cc.total), 0) AS total FROM contact_counters cc
             WHERE ${join(cond, ' AND ')}`;
    const total = q.search ? raw('count(*) OVER ()') : sql`(${count})`;

    const sort = SORT_COLUMNS[q.sortBy];
    const descending = q.sortOrder !== 'asc';
    const order = raw(
      `${sort.column} ${descending ? 'DESC' : 'ASC'}${sort.nullable ? ' NULLS LAST' : ''}`,
    );
    const idOrder = raw(descending ? 'DESC' : 'ASC');
    const limit = Math.trunc(q.limit);
    const offset = Math.trunc((q.page - 1) * q.limit);
    const { columns, embedded } = this.fixed;
    let contacts = sql`
      SELECT ${columns}, ${total} AS total FROM contacts c WHERE ${matching}
       ORDER BY c.${order}, c.id ${idOrder} LIMIT ${limit} OFFSET ${offset}`;
    if (sort.nullable && descending && !q.search) {
      // The field's one index is ascending, NULLs last: read backward it gives the NULLs first.
      // So the values up to the page's end come from it read backward (`v`), and only when they
      // fall short of the page's end are the NULLs read (`n`, newest id first) to fill it.
      const col = raw(`c.${sort.column}`);
      const end = limit + offset;
      contacts = sql`
        WITH v AS (
          SELECT ${columns} FROM contacts c WHERE ${matching} AND ${col} IS NOT NULL
           ORDER BY ${col} DESC, c.id DESC LIMIT ${end}
        ), n AS (
          SELECT ${columns} FROM contacts c WHERE ${matching} AND ${col} IS NULL
             AND (SELECT count(*) FROM v) < ${end}
           ORDER BY c.id DESC LIMIT ${end} - (SELECT count(*) FROM v)
        )
        SELECT u.*, ${total} AS total FROM (SELECT * FROM v UNION ALL SELECT * FROM n) u
         ORDER BY u.c_${order}, u.c_id DESC LIMIT ${limit} OFFSET ${offset}`;
    }
    // The limited page is a subquery, so the lookups below run for its rows only; the outer ORDER
    // BY restores its order (a sort of at most 100 rows).
    const page = sql`
      SELECT p.total, ${embedded} FROM (${contacts}) p
       ORDER BY p.c_${order}, p.c_id ${idOrder}`;
    return { page, count };
  }

  /**
   * The select list of a page's contacts (`columns`) and what each row of the page carries
   * (`embedded`): per contact of the page (`p`), the contact as a JSON object keyed by column
   * name; one JSON array of records per channel, in the loaders' order, null when the contact's
   * channel_mask lacks the channel (not looked up) or it has no record; its tag names as a JSON
   * array. The records and tags are looked up in the page's organization (`p.c_organization_id`,
   * the organization every row of the page is filtered by), so neither part has a parameter.
   */
  private fixedParts(): { columns: Sql; embedded: Sql } {
    const pairs = (entity: ContactChannel | 'contact', alias: string) =>
      this.ds
        .getMetadata(entity === 'contact' ? Contact : CHANNEL_INFO[entity].entity)
        .columns.filter((c) => c.isSelect)
        .map((c) => `'${c.databaseName}', ${alias}${c.databaseName}`)
        .join(', ');
    const parts = [`json_build_object(${pairs('contact', 'p.c_')}) AS contact`];
    for (const ch of CONTACT_CHANNELS) {
      const { bit, table } = CHANNEL_INFO[ch];
      parts.push(`
        CASE WHEN (p.c_channel_mask & ${bit}) <> 0 THEN
          (SELECT json_agg(json_build_object(${pairs(ch, 'r.')}) ORDER BY r.created_at, r.id)
             FROM ${table} r
            WHERE r.organization_id = p.c_organization_id AND r.contact_id = p.c_id)
        END AS ch_${ch}`);
    }
    parts.push(`
      (SELECT json_agg(t.name ORDER BY lower(t.name), t.id) FROM contact_tags t
        WHERE t.organization_id = p.c_organization_id AND t.id = ANY(p.c_tag_ids)) AS tag_names`);
    return {
      columns: raw(`${selectList(this.ds, Contact, 'c', 'c')}, c.tag_ids AS c_tag_ids`),
      embedded: raw(parts.join(', ')),
    };
  }

  /**
   * One GET /contacts page: its contacts with every channel array (empty when the contact has no
   * record) and tag names, and the total. The page is only printed: its timestamps stay text
   * (toListedEntities).
   */
  async listPage(
    orgId: OrgId,
    q: ContactListQuery,
  ): Promise<{ views: ListedContactView[]; total: number }> {
    type PageRow = Record<string, unknown> & {
      total: string;
      contact: Record<string, unknown>;
      tag_names: string[] | null;
    };
    const { page, count } = this.listQueries(orgId, q);
    const rows = await query<PageRow>(this.ds, page, { prepare: pageStatementName(page.text) });
    if (!rows.length) {
      // An empty first page means nothing matches; past the last page the total is counted apart.
      if (q.page === 1) return { views: [], total: 0 };
      const [row] = await query<{ total: string }>(this.ds, count);
      return { views: [], total: Number(row?.total ?? 0) };
    }
    const contacts = toListedEntities<Contact>(
      this.ds,
      Contact,
      rows.map((row) => row.contact),
    );
    const views = rows.map((row, i): ListedContactView => ({
      contact: contacts[i],
      tags: row.tag_names ?? [],
    }));
    // Each channel's records of the whole page are hydrated in one call, then handed back to their
    // contacts in order (a contact without a record on the channel gets an empty array).
    for (const ch of CONTACT_CHANNELS) {
      const { key, entity } = CHANNEL_INFO[ch];
      const perRow = rows.map((row) => (row[`ch_${ch}`] as Record<string, unknown>[] | null) ?? []);
      const records = toListedEntities(this.ds, entity, perRow.flat());
      let next = 0;
      views.forEach((view, i) => {
        const n = perRow[i].length;
        (view as unknown as Record<string, unknown[]>)[key] = n
          ? records.slice(next, next + n)
          : [];
        next += n;
      });
    }
    return { views, total: Number(rows[0].total) };
  }

  /** Name fragment (one trigram index) or exact email / phone number (blind indexes, every key). */
  private searchQuery(orgId: OrgId, search: string): Sql {
    // contact_search_text joins the three names with chr(1), which a fragment never contains, and
    // leaves out a display name stored encrypted (it carries an address).
    // eslint-disable-next-line no-control-regex
    const pattern = `%${escapeLike(search.replace(/[\x00-\x1f]/g, ''))}%`;
    const parts = [
      sql`SELECT n.id FROM contacts n WHERE n.organization_id = ${orgId}::uuid
            AND contact_search_text(n.first_name, n.last_name, n.display_name) ILIKE ${pattern}`,
    ];
    if (search.includes('@')) {
      parts.push(sql`
        SELECT e.contact_id FROM contact_emails e WHERE e.organization_id = ${orgId}::uuid
           AND e.email_hash = ANY(${blindIndexCandidatesOf('email', search)}::text[])`);
    }
    const phone = normalisePhone(search);
    if (phone) {
      const hashes = blindIndexCandidatesOf('phone', phone);
      for (const table of PHONE_TABLES) {
        parts.push(sql`
          SELECT t.contact_id FROM ${raw(table)} t WHERE t.organization_id = ${orgId}::uuid
             AND t.phone_hash = ANY(${hashes}::text[])`);
      }
    }
    return join(parts, ' UNION ALL ');
  }
}
