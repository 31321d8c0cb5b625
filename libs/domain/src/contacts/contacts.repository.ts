<<<<<<< HEAD
// Contact reads: the SQL of GET /contacts (one statement: the page with its total, channel records
// and tag names) and the batch loaders that preload channel records, tags and memberships for a set
// of contacts in one query each.
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, In, ObjectLiteral } from 'typeorm';
import { blindIndexCandidatesOf } from './blind-index';
import { CHANNEL_INFO, CONTACT_CHANNELS, ContactChannel } from './contact-channels.entity';
import { ContactList } from './contact-list.entity';
import { ContactListMembership } from './contact-list-membership.entity';
import { ContactListQuery, ContactSortField } from './contact-query';
import { ContactTag } from './contact-tag.entity';
import { ContactResponseSource, ContactView, Listed } from './contact-views';
import { Contact } from './contact.entity';
import { isoFromPgJsonTimestamp } from './json-instant';
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

// Nullable fields sort NULLs last in both directions (one index per direction, see migration).
const SORT_COLUMNS: Record<ContactSortField, { column: string; nullable: boolean }> = {
  firstName: { column: 'first_name', nullable: true },
  lastName: { column: 'last_name', nullable: true },
  createdAt: { column: 'created_at', nullable: false },
  updatedAt: { column: 'updated_at', nullable: false },
  lastActivityAt: { column: 'last_activity_at', nullable: true },
};

const PHONE_TABLES = ['contact_sms', 'contact_whatsapp', 'contact_telegram'];

/** Column types whose node-postgres value the TypeORM driver returns unchanged. */
const AS_RETURNED = new Set([
  'uuid',
  'text',
  'varchar',
  'character varying',
  'smallint',
  'integer',
  'int',
  'jsonb',
]);

/** Column types hydrated as a Date (the ones a listed page prints without one). */
const TIMESTAMP_TYPES = new Set(['timestamptz', 'timestamp with time zone']);
=======
// The contacts table's statements.
>>>>>>> h21-contacts

/** Escapes the LIKE wildcards of a user's fragment. */
export function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (m) => '\\' + m);
}
<<<<<<< HEAD

interface HydrateOptions {
  /** The query builder alias the columns were selected under (`c` → `c_first_name`). */
  alias?: string;
  /**
   * 'iso': a timestamp column in PostgreSQL's UTC JSON form becomes its `toISOString` text
   * instead of a Date (any other form still becomes a Date); the result is then `Listed`.
   */
  instants?: 'iso';
}

@Injectable()
export class ContactsRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** A read through the data source. */
  private read<T = Record<string, unknown>>(sql: string, params: unknown[]): Promise<T[]> {
    return this.ds.query(sql, params);
  }

  /**
   * The SQL of one GET /contacts page. `page` is one statement: per contact of the page, the
   * total (`total`), the contact (`contact`), its channel records as a JSON array per channel
   * (`ch_<channel>`, only for the channels its channel_mask has) and its tag names (`tag_names`).
   * The total comes from contact_counters (kept by triggers) unless there is a search, else a
   * window count over the matches; the page walks the sort field's index and the records and tags
   * are looked up for the page's rows only. `count` is the same total on its own, needed only when
   * the page is empty (past the last page). The text is assembled directly (no query builder: it
   * ran on every request).
   */
  listQueries(orgId: string, q: ContactListQuery): { page: SqlQuery; count: SqlQuery } {
    const params: unknown[] = [orgId];
    const bind = (v: unknown) => `$${params.push(v)}`;
    const where = ['c.organization_id = $1'];
    const cond = ['cc.organization_id = $1'];
    if (q.status) {
      const status = bind(q.status);
      where.push(`c.status = ${status}`);
      cond.push(`cc.status = ${status}`);
    }
    if (q.channel) {
      const bit = CHANNEL_INFO[q.channel].bit;
      where.push(`(c.channel_mask & ${bit}) <> 0`);
      cond.push(`(cc.channel_mask & ${bit}) <> 0`);
    }
    if (q.search) where.push(`c.id IN (${this.searchSql(q.search, bind)})`);
    const whereSql = where.join(' AND ');

    let countSql: string;
    let totalColumn: string;
    if (q.search) {
      countSql = `SELECT count(*) AS total FROM contacts c WHERE ${whereSql}`;
      totalColumn = 'count(*) OVER ()';
    } else {
      countSql = `SELECT coalesce(sum(cc.total), 0) AS total FROM contact_counters cc WHERE ${cond.join(' AND ')}`;
      totalColumn = `(${countSql})`;
    }

    const sort = SORT_COLUMNS[q.sortBy];
    const dir = q.sortOrder === 'asc' ? 'ASC' : 'DESC';
    const nulls = sort.nullable ? ' NULLS LAST' : '';
    const limit = Math.trunc(q.limit);
    const offset = Math.trunc((q.page - 1) * q.limit);
    const contactsSql =
      `SELECT ${this.contactColumns()}, ${totalColumn} AS total FROM contacts c WHERE ${whereSql}` +
      ` ORDER BY c.${sort.column} ${dir}${nulls}, c.id ${dir} LIMIT ${limit} OFFSET ${offset}`;
    // The limited page is a subquery, so the lookups below run for its rows only; the outer ORDER
    // BY restores its order (a sort of at most 100 rows).
    const pageSql =
      `SELECT p.total, ${this.embeddedColumns()} FROM (${contactsSql}) p` +
      ` ORDER BY p.c_${sort.column} ${dir}${nulls}, p.c_id ${dir}`;
    return { page: { sql: pageSql, params }, count: { sql: countSql, params } };
  }

  private embeddedColumnsSql?: string;

  /**
   * Per contact of a page (`p`): the contact as a JSON object keyed by column name (what `hydrate`
   * reads); one JSON array of records per channel, in the loaders' order, null when the contact's
   * channel_mask lacks the channel (not looked up) or it has no record; its tag names as a JSON
   * array. JSON because node-postgres turns each column of a row into a value on its own (its
   * timestamp parser costs several microseconds a value, and a page carries hundreds) while a
   * JSON column is one JSON.parse; timestamps then become Dates through TypeORM's hydration.
   */
  private embeddedColumns(): string {
    if (this.embeddedColumnsSql) return this.embeddedColumnsSql;
    const contact = this.ds
      .getMetadata(Contact)
      .columns.filter((c) => c.isSelect)
      .map((c) => `'${c.databaseName}', p.c_${c.databaseName}`)
      .join(', ');
    const parts = [`json_build_object(${contact}) AS contact`];
    for (const ch of CONTACT_CHANNELS) {
      const meta = this.ds.getMetadata(CHANNEL_INFO[ch].entity);
      const pairs = meta.columns
        .filter((c) => c.isSelect)
        .map((c) => `'${c.databaseName}', r.${c.databaseName}`)
        .join(', ');
      parts.push(
        `CASE WHEN (p.c_channel_mask & ${CHANNEL_INFO[ch].bit}) <> 0 THEN` +
          ` (SELECT json_agg(json_build_object(${pairs}) ORDER BY r.created_at, r.id)` +
          ` FROM ${meta.tableName} r WHERE r.organization_id = $1 AND r.contact_id = p.c_id) END AS ch_${ch}`,
      );
    }
    parts.push(
      `(SELECT json_agg(t.name ORDER BY lower(t.name), t.id) FROM contact_tag_assignments a` +
        ` JOIN contact_tags t ON t.id = a.tag_id` +
        ` WHERE a.organization_id = $1 AND a.contact_id = p.c_id) AS tag_names`,
    );
    this.embeddedColumnsSql = parts.join(', ');
    return this.embeddedColumnsSql;
  }

  private contactColumnsSql?: string;

  /** The contact's selected columns as `c.<column> AS c_<column>` (what `hydrate` reads). */
  private contactColumns(): string {
    this.contactColumnsSql ??= this.ds
      .getMetadata(Contact)
      .columns.filter((c) => c.isSelect)
      .map((c) => `c.${c.databaseName} AS c_${c.databaseName}`)
      .join(', ');
    return this.contactColumnsSql;
  }

  /**
   * Runs the page statement: its contacts with every channel array (empty when the contact has no
   * record) and tag names, and the total. Records become entities through `hydrate`, exactly as
   * the loaders' rows do (decryption by `encryptedColumn` included), except that timestamps in
   * PostgreSQL's UTC JSON form are kept as their `toISOString` text (json-instant.ts): the page
   * is only printed, and a Date per timestamp cost ~1 µs, ~0.5 ms a first page.
   */
  async listPage(
    query: { page: SqlQuery; count: SqlQuery },
    pageNumber: number,
  ): Promise<{ views: ContactResponseSource[]; total: number }> {
    type PageRow = Record<string, unknown> & {
      total: string;
      contact: Record<string, unknown>;
      tag_names: string[] | null;
    };
    const raw = await this.read<PageRow>(query.page.sql, query.page.params);
    if (!raw.length) {
      // An empty first page means nothing matches; past the last page the total is counted apart.
      return { views: [], total: pageNumber > 1 ? await this.count(query.count) : 0 };
    }
    // Hydrators looked up once per page, not per contact and channel.
    const contactOf = this.hydratorFor(Contact, { instants: 'iso' });
    const channels = CONTACT_CHANNELS.map((ch) => ({
      column: `ch_${ch}`,
      key: CHANNEL_INFO[ch].key,
      hydrator: this.hydratorFor(CHANNEL_INFO[ch].entity, { instants: 'iso' }),
    }));
    const views = raw.map((row) => {
      const view: ContactResponseSource = {
        contact: contactOf(row.contact) as Listed<Contact>,
        tags: row.tag_names ?? [],
      };
      for (const { column, key, hydrator } of channels) {
        const records = row[column] as Record<string, unknown>[] | null;
        (view as unknown as Record<string, unknown[]>)[key] = records ? records.map(hydrator) : [];
      }
      return view;
    });
    return { views, total: Number(raw[0].total) };
  }

  /** Name fragment (one trigram index) or exact email / phone number (blind indexes, every key). */
  private searchSql(search: string, bind: (value: unknown) => string): string {
    // contact_search_text joins the three names with chr(1), which a fragment never contains, and
    // leaves out a display name stored encrypted (it carries an address).
    // eslint-disable-next-line no-control-regex
    const pattern = bind(`%${escapeLike(search.replace(/[\x00-\x1f]/g, ''))}%`);
    const parts = [
      `SELECT n.id FROM contacts n WHERE n.organization_id = $1 AND contact_search_text(n.first_name, n.last_name, n.display_name) ILIKE ${pattern}`,
    ];
    if (search.includes('@')) {
      const hashes = bind(blindIndexCandidatesOf('email', search));
      parts.push(
        `SELECT e.contact_id FROM contact_emails e WHERE e.organization_id = $1 AND e.email_hash = ANY(${hashes})`,
      );
    }
    const phone = normalisePhone(search);
    if (phone) {
      const hashes = bind(blindIndexCandidatesOf('phone', phone));
      for (const table of PHONE_TABLES) {
        parts.push(
          `SELECT t.contact_id FROM ${table} t WHERE t.organization_id = $1 AND t.phone_hash = ANY(${hashes})`,
        );
      }
    }
    return parts.join(' UNION ALL ');
  }

  async count(query: SqlQuery): Promise<number> {
    const rows = await this.read<{ total: string }>(query.sql, query.params);
    return Number(rows[0]?.total ?? 0);
  }

  private readonly channelSql = new Map<ContactChannel, string>();

  /** The batch query of one channel's records for a set of contacts (text built once). */
  private channelQuery(orgId: string, ids: string[], channel: ContactChannel): SqlQuery {
    let sql = this.channelSql.get(channel);
    if (!sql) {
      const meta = this.ds.getMetadata(CHANNEL_INFO[channel].entity);
      const cols = meta.columns.filter((c) => c.isSelect).map((c) => `r.${c.databaseName}`);
      sql = `SELECT ${cols.join(', ')} FROM ${meta.tableName} r
              WHERE r.organization_id = $1 AND r.contact_id = ANY($2::uuid[])
              ORDER BY r.created_at, r.id`;
      this.channelSql.set(channel, sql);
    }
    return { sql, params: [orgId, ids] };
  }

  /**
   * Rows to entities through TypeORM's own per-column hydration, so every column transformer
   * (decryption by `encryptedColumn` included) applies exactly as in a repository read.
   */
  private readonly hydrators = new Map<string, (row: Record<string, unknown>) => ObjectLiteral>();

  private hydrate<T extends ObjectLiteral>(
    // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
    entity: Function,
    rows: Record<string, unknown>[],
    opts: HydrateOptions = {},
  ): T[] {
    return rows.map(this.hydratorFor(entity, opts)) as T[];
  }

  /** The (cached) function turning one row of `entity` into an entity, see `hydrate`. */
  private hydratorFor(
    // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
    entity: Function,
    opts: HydrateOptions = {},
  ): (row: Record<string, unknown>) => ObjectLiteral {
    const { alias, instants } = opts;
    const cacheKey = `${entity.name}:${alias ?? ''}:${instants ?? ''}`;
    let hydrator = this.hydrators.get(cacheKey);
    if (!hydrator) {
      const meta = this.ds.getMetadata(entity);
      const driver = this.ds.driver;
      const cols = meta.columns
        .filter((c) => c.isSelect)
        .map((c) => ({
          column: c,
          key: alias ? `${alias}_${c.databaseName}` : c.databaseName,
        }));
      const proto = (meta.target as { prototype: object }).prototype;
      // Columns node-postgres already returns in their final form (no transformer, a type
      // prepareHydratedValue leaves as it is) are copied; the others go through the driver.
      const plain = cols.map(
        ({ column }) =>
          !column.transformer &&
          !column.isArray &&
          typeof column.type === 'string' &&
          AS_RETURNED.has(column.type),
      );
      const printed = cols.map(
        ({ column }) =>
          instants === 'iso' &&
          !column.transformer &&
          !column.isArray &&
          typeof column.type === 'string' &&
          TIMESTAMP_TYPES.has(column.type),
      );
      hydrator = (row) => {
        const out = Object.create(proto) as ObjectLiteral;
        for (let i = 0; i < cols.length; i++) {
          const { column, key } = cols[i];
          const value = row[key];
          if (plain[i]) {
            out[column.propertyName] = value;
          } else if (printed[i] && typeof value === 'string') {
            out[column.propertyName] =
              isoFromPgJsonTimestamp(value) ?? driver.prepareHydratedValue(value, column);
          } else {
            out[column.propertyName] = driver.prepareHydratedValue(value, column);
          }
        }
        return out;
      };
      this.hydrators.set(cacheKey, hydrator);
    }
    return hydrator;
  }

  private async channelRecords(
    orgId: string,
    ids: string[],
    channel: ContactChannel,
  ): Promise<ObjectLiteral[]> {
    const q = this.channelQuery(orgId, ids, channel);
    return this.hydrate(CHANNEL_INFO[channel].entity, await this.read(q.sql, q.params));
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

  /**
   * Channels worth querying for these contacts: a channel no contact has a record on (by its
   * channel_mask bit) is not queried at all.
   */
  private channelsFor(contacts: Contact[], wanted: readonly ContactChannel[]): ContactChannel[] {
    const mask = contacts.reduce((m, c) => m | c.channelMask, 0);
    return wanted.filter((ch) => (mask & CHANNEL_INFO[ch].bit) !== 0);
  }

  /** Contacts of the organization by id, in the order of `ids` (unknown ids are skipped). */
  async load(orgId: string, ids: string[], opts: ContactLoadOptions = {}): Promise<ContactView[]> {
    if (!ids.length) return [];
    const found = this.hydrate<Contact>(
      Contact,
      await this.read(
        `SELECT ${this.contactColumns()} FROM contacts c
          WHERE c.organization_id = $1 AND c.id = ANY($2::uuid[])`,
        [orgId, ids],
      ),
      { alias: 'c' },
    );
    const byId = new Map(found.map((c) => [c.id, c]));
    const contacts = ids.map((id) => byId.get(id)).filter((c): c is Contact => Boolean(c));
    return this.complete(orgId, contacts, opts);
  }

  /**
   * Adds to already loaded contacts what `opts` asks for: one query per kind of data, run in
   * parallel, never one query per contact.
   */
  async complete(
    orgId: string,
    contacts: Contact[],
    opts: ContactLoadOptions = {},
  ): Promise<ContactView[]> {
    if (!contacts.length) return [];
    const ids = contacts.map((c) => c.id);
    const wanted = opts.channels ?? [];
    const channels = this.channelsFor(contacts, wanted);
    const tagQuery = opts.tags || opts.tagRecords ? this.tagNamesQuery(orgId, ids) : null;
    const [channelRows, tagRows, memberships] = await Promise.all([
      Promise.all(channels.map((ch) => this.channelRecords(orgId, ids, ch))),
      tagQuery
        ? this.read<{ contact_id: string; tag_id: string; name: string }>(
            tagQuery.sql,
            tagQuery.params,
          )
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
}
=======
>>>>>>> h21-contacts
