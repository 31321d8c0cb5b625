// SQL of tags, of contacts' tag ids (contacts.tag_ids) and of lists' tags.
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { OrgId } from '../common/org-id';
import { PageRequest, pageOffset } from '../common/pagination';
import { toEntities } from '../database/entity-rows';
import { inTransaction } from '../database/transaction';
import { query, sql, Sql } from '../database/sql';
import { ContactTag } from './contact-tag.entity';

type Db = DataSource | EntityManager;

/** A unique violation on a tag's name. */
export function isDuplicateTagName(err: unknown): boolean {
  const e = err as { code?: string; constraint?: string };
  return e?.code === '23505' && e.constraint === 'contact_tags_org_name_uq';
}

@Injectable()
export class ContactTagsRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  private async tags(db: Db, q: Sql): Promise<ContactTag[]> {
    return toEntities<ContactTag>(this.ds, ContactTag, await query(db, q));
  }

  /** A tag's columns and its contact count, the sum of its counters' slots (`t`: contact_tags). */
  private static readonly COLUMNS = sql`t.*,
    (SELECT coalesce(sum(tc.total), 0)::int FROM contact_tag_counters tc WHERE tc.tag_id = t.id)
      AS contact_count`;

  /** A page of the organization's tags by name, and their total. */
  async page(orgId: OrgId, page: PageRequest): Promise<[ContactTag[], number]> {
    const [items, [{ total }]] = await Promise.all([
      this.tags(
        this.ds,
        sql`SELECT ${ContactTagsRepository.COLUMNS} FROM contact_tags t
             WHERE t.organization_id = ${orgId}::uuid
             ORDER BY lower(t.name), t.id LIMIT ${page.limit} OFFSET ${pageOffset(page)}`,
      ),
      query<{ total: string }>(
        this.ds,
        sql`SELECT count(*) AS total FROM contact_tags WHERE organization_id = ${orgId}::uuid`,
      ),
    ]);
    return [items, Number(total)];
  }

  /** Every tag of the organization, id and name only, by name. */
  all(orgId: OrgId): Promise<{ id: string; name: string }[]> {
    return query(
      this.ds,
      sql`SELECT id, name FROM contact_tags WHERE organization_id = ${orgId}::uuid
           ORDER BY lower(name), id`,
    );
  }

  async get(orgId: OrgId, id: string, db: Db = this.ds): Promise<ContactTag | null> {
    const [tag] = await this.tags(
      db,
      sql`SELECT ${ContactTagsRepository.COLUMNS} FROM contact_tags t
           WHERE t.organization_id = ${orgId}::uuid AND t.id = ${id}::uuid`,
    );
    return tag ?? null;
  }

  /** Inserts a tag; answers its id (a taken name fails with `isDuplicateTagName`). */
  async insert(orgId: OrgId, name: string): Promise<string> {
    const [row] = await query<{ id: string }>(
      this.ds,
      sql`INSERT INTO contact_tags (organization_id, name) VALUES (${orgId}::uuid, ${name})
          RETURNING id`,
    );
    return row.id;
  }

  /** Renames a tag; answers whether it exists (a taken name fails with `isDuplicateTagName`). */
  async rename(orgId: OrgId, id: string, name: string): Promise<boolean> {
    const rows = await query(
      this.ds,
      sql`UPDATE contact_tags SET name = ${name}, updated_at = now()
           WHERE organization_id = ${orgId}::uuid AND id = ${id}::uuid RETURNING id`,
    );
    return rows.length > 0;
  }

  /**
   * Deletes a tag, its counters and list links by cascade, and takes its id off every contact
   * that has it, in one transaction; answers whether it existed. The delete waits for the
   * transactions that hold the tag (`byNames`), so the contacts they tagged are seen by the
   * second statement.
   */
  delete(orgId: OrgId, id: string): Promise<boolean> {
    return inTransaction(this.ds, (em) => this.deleteIn(em, orgId, id));
  }

  private async deleteIn(em: EntityManager, orgId: OrgId, id: string): Promise<boolean> {
    const rows = await query(
      em,
      sql`DELETE FROM contact_tags WHERE organization_id = ${orgId}::uuid AND id = ${id}::uuid
          RETURNING id`,
    );
    if (!rows.length) return false;
    await query(
      em,
      sql`UPDATE contacts c SET tag_ids = array_remove(c.tag_ids, ${id}::uuid)
            FROM (SELECT id FROM contacts
                   WHERE organization_id = ${orgId}::uuid AND tag_ids @> ARRAY[${id}::uuid]
                   ORDER BY id FOR NO KEY UPDATE) l
           WHERE c.organization_id = ${orgId}::uuid AND c.id = l.id`,
    );
    return true;
  }

  /**
   * The tags whose lower-cased name is one of `lowerNames`, by name, locked `FOR KEY SHARE` until
   * the transaction ends: a tag this transaction puts on contacts is not deleted meanwhile.
   */
  byNames(orgId: OrgId, lowerNames: string[], em: EntityManager): Promise<ContactTag[]> {
    return this.tags(
      em,
      sql`SELECT ${ContactTagsRepository.COLUMNS} FROM contact_tags t
           WHERE t.organization_id = ${orgId}::uuid AND lower(t.name) = ANY(${lowerNames}::text[])
           ORDER BY lower(t.name) FOR KEY SHARE OF t`,
    );
  }

  /** Inserts the tags with these names that the organization does not have (any case). */
  async insertMissing(orgId: OrgId, names: string[], em: EntityManager): Promise<void> {
    await query(
      em,
      sql`INSERT INTO contact_tags (organization_id, name)
          SELECT ${orgId}::uuid, n FROM unnest(${names}::text[]) AS n
          ON CONFLICT (organization_id, lower(name)) DO NOTHING`,
    );
  }

  /**
   * Adds tags to contacts that exist already, one (contact, tag) pair per index of the two arrays
   * (a contact keeps the tags it has). The contacts are locked in id order, then written.
   */
  async assign(
    orgId: OrgId,
    contactIds: string[],
    tagIds: string[],
    em: EntityManager,
  ): Promise<void> {
    if (!contactIds.length) return;
    await query(
      em,
      sql`WITH added AS (
            SELECT u.c AS id, array_agg(u.t) AS tags
              FROM unnest(${contactIds}::uuid[], ${tagIds}::uuid[]) AS u(c, t) GROUP BY u.c),
          locked AS (
            SELECT c.id, a.tags FROM contacts c JOIN added a ON a.id = c.id
             WHERE c.organization_id = ${orgId}::uuid AND NOT c.tag_ids @> a.tags
             ORDER BY c.id FOR NO KEY UPDATE OF c)
          UPDATE contacts c
             SET tag_ids = ARRAY(SELECT DISTINCT x FROM unnest(c.tag_ids || l.tags) x ORDER BY x)
            FROM locked l
           WHERE c.organization_id = ${orgId}::uuid AND c.id = l.id`,
    );
  }

  /** Removes one tag from one contact. */
  async unassign(orgId: OrgId, contactId: string, tagId: string, em: EntityManager) {
    await query(
      em,
      sql`UPDATE contacts SET tag_ids = array_remove(tag_ids, ${tagId}::uuid)
           WHERE organization_id = ${orgId}::uuid AND id = ${contactId}::uuid
             AND tag_ids @> ARRAY[${tagId}::uuid]`,
    );
  }

  /** Tag names of lists, by list id (every list id present). */
  async namesOfLists(orgId: OrgId, listIds: string[]): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>(listIds.map((id) => [id, []]));
    if (!listIds.length) return out;
    const rows = await query<{ contact_list_id: string; name: string }>(
      this.ds,
      sql`SELECT lt.contact_list_id, t.name FROM contact_list_tags lt
            JOIN contact_tags t ON t.id = lt.tag_id
           WHERE t.organization_id = ${orgId}::uuid AND lt.contact_list_id = ANY(${listIds}::uuid[])
           ORDER BY lower(t.name), t.id`,
    );
    for (const r of rows) out.get(r.contact_list_id)?.push(r.name);
    return out;
  }

  /** Replaces a list's tags. */
  async setListTags(orgId: OrgId, listId: string, tagIds: string[], em: EntityManager) {
    await query(
      em,
      sql`DELETE FROM contact_list_tags lt USING contact_lists l
           WHERE l.id = lt.contact_list_id AND l.organization_id = ${orgId}::uuid
             AND l.id = ${listId}::uuid`,
    );
    if (!tagIds.length) return;
    await query(
      em,
      sql`INSERT INTO contact_list_tags (contact_list_id, tag_id)
          SELECT l.id, t FROM contact_lists l, unnest(${tagIds}::uuid[]) AS t
           WHERE l.organization_id = ${orgId}::uuid AND l.id = ${listId}::uuid`,
    );
  }
}
