// SQL of tags and their assignment to contacts and lists.
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { OrgId } from '../common/org-id';
import { PageRequest, pageOffset } from '../common/pagination';
import { toEntities } from '../database/entity-rows';
import { empty, query, sql, Sql } from '../database/sql';
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

  /** A page of the organization's tags by name, and their total. */
  async page(orgId: OrgId, page: PageRequest): Promise<[ContactTag[], number]> {
    const [items, [{ total }]] = await Promise.all([
      this.tags(
        this.ds,
        sql`SELECT * FROM contact_tags WHERE organization_id = ${orgId}::uuid
             ORDER BY lower(name), id LIMIT ${page.limit} OFFSET ${pageOffset(page)}`,
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
      sql`SELECT * FROM contact_tags WHERE organization_id = ${orgId}::uuid AND id = ${id}::uuid`,
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

  /** Deletes a tag (its assignments go by cascade); answers whether it existed. */
  async delete(orgId: OrgId, id: string): Promise<boolean> {
    const rows = await query(
      this.ds,
      sql`DELETE FROM contact_tags WHERE organization_id = ${orgId}::uuid AND id = ${id}::uuid
          RETURNING id`,
    );
    return rows.length > 0;
  }

  /** The tags whose lower-cased name is one of `lowerNames`, by name. */
  byNames(orgId: OrgId, lowerNames: string[], em: EntityManager): Promise<ContactTag[]> {
    return this.tags(
      em,
      sql`SELECT * FROM contact_tags
           WHERE organization_id = ${orgId}::uuid AND lower(name) = ANY(${lowerNames}::text[])
           ORDER BY lower(name)`,
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
   * Assigns tags to contacts, one (contact, tag) pair per index of the two arrays. `fresh`: none
   * of the pairs can exist yet (contacts this transaction inserted), so they go in as a plain
   * insert; else a pair already there is left as it is.
   */
  async assign(
    orgId: OrgId,
    contactIds: string[],
    tagIds: string[],
    em: EntityManager,
    fresh = false,
  ): Promise<void> {
    if (!contactIds.length) return;
    await query(
      em,
      sql`INSERT INTO contact_tag_assignments (contact_id, tag_id, organization_id)
          SELECT u.c, u.t, ${orgId}::uuid FROM unnest(${contactIds}::uuid[], ${tagIds}::uuid[]) AS u(c, t)
           ORDER BY 1, 2
          ${fresh ? empty : sql`ON CONFLICT (contact_id, tag_id) DO NOTHING`}`,
    );
  }

  /** Removes one tag from one contact. */
  async unassign(orgId: OrgId, contactId: string, tagId: string, em: EntityManager) {
    await query(
      em,
      sql`DELETE FROM contact_tag_assignments
           WHERE organization_id = ${orgId}::uuid AND contact_id = ${contactId}::uuid
             AND tag_id = ${tagId}::uuid`,
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
