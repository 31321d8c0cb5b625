// Tags of an organization: names unique case-insensitively, contactCount kept exact by a trigger.
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, QueryFailedError } from 'typeorm';
import { Page, PageRequest, pageOffset } from '../common/pagination';
import { ConflictError, NotFoundError } from '../errors/domain-errors';
import { ContactTag } from './contact-tag.entity';

/** Trimmed names, first spelling wins among case variants. */
export function uniqueTagNames(names: string[]): string[] {
  const seen = new Map<string, string>();
  for (const raw of names) {
    const name = raw.trim();
    if (name && !seen.has(name.toLowerCase())) seen.set(name.toLowerCase(), name);
  }
  return [...seen.values()];
}

function isDuplicateName(err: unknown): boolean {
  return (
    err instanceof QueryFailedError &&
    (err as { code?: string }).code === '23505' &&
    /contact_tags_org_name_uq/.test(String((err as { constraint?: string }).constraint))
  );
}

@Injectable()
export class ContactTagsService {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  private repo(em?: EntityManager) {
    return (em ?? this.ds.manager).getRepository(ContactTag);
  }

  async list(orgId: string, page: PageRequest): Promise<Page<ContactTag>> {
    const qb = this.repo()
      .createQueryBuilder('t')
      .where('t.organizationId = :orgId', { orgId })
      .orderBy('lower(t.name)', 'ASC')
      .addOrderBy('t.id', 'ASC')
      .offset(pageOffset(page))
      .limit(page.limit);
    const [items, total] = await Promise.all([qb.getMany(), qb.getCount()]);
    return new Page(items, total, page);
  }

  /** Every tag, id and name only. */
  async all(orgId: string): Promise<{ id: string; name: string }[]> {
    return this.ds.query(
      `SELECT id, name FROM contact_tags WHERE organization_id = $1 ORDER BY lower(name), id`,
      [orgId],
    );
  }

  async get(orgId: string, id: string, em?: EntityManager): Promise<ContactTag> {
    const tag = await this.repo(em).findOneBy({ id, organizationId: orgId });
    if (!tag) throw new NotFoundError('Tag');
    return tag;
  }

  async create(orgId: string, name: string): Promise<ContactTag> {
    try {
      const { identifiers } = await this.repo().insert({
        organizationId: orgId,
        name: name.trim(),
      });
      return this.get(orgId, identifiers[0].id as string);
    } catch (err) {
      if (isDuplicateName(err)) throw new ConflictError('A tag with this name already exists');
      throw err;
    }
  }

  async rename(orgId: string, id: string, name: string): Promise<ContactTag> {
    await this.get(orgId, id);
    try {
      await this.repo().update({ id, organizationId: orgId }, { name: name.trim() });
    } catch (err) {
      if (isDuplicateName(err)) throw new ConflictError('A tag with this name already exists');
      throw err;
    }
    return this.get(orgId, id);
  }

  /** Removes the tag from every contact and list too. */
  async delete(orgId: string, id: string): Promise<void> {
    const res = await this.repo().delete({ id, organizationId: orgId });
    if (!res.affected) throw new NotFoundError('Tag');
  }

  /** The tags with these names, created when missing (existing spellings are kept). */
  async ensure(em: EntityManager, orgId: string, names: string[]): Promise<ContactTag[]> {
    const unique = uniqueTagNames(names);
    if (!unique.length) return [];
    const find = () =>
      em
        .getRepository(ContactTag)
        .createQueryBuilder('t')
        .where('t.organizationId = :orgId', { orgId })
        .andWhere('lower(t.name) = ANY(:names)', { names: unique.map((n) => n.toLowerCase()) })
        .orderBy('lower(t.name)', 'ASC')
        .getMany();
    // Existing tags are read first: an INSERT ... ON CONFLICT meeting a tag whose contact_count
    // another transaction has just moved (any tagging does) waits for that transaction to end.
    const found = await find();
    if (found.length === unique.length) return found;
    await em.query(
      `INSERT INTO contact_tags (organization_id, name)
       SELECT $1, n FROM unnest($2::text[]) AS n
       ON CONFLICT (organization_id, lower(name)) DO NOTHING`,
      [orgId, unique],
    );
    return find();
  }

  /** Adds the named tags to a contact (idempotent). */
  async assign(
    em: EntityManager,
    orgId: string,
    contactId: string,
    names: string[],
  ): Promise<void> {
    const tags = await this.ensure(em, orgId, names);
    if (!tags.length) return;
    await em.query(
      `INSERT INTO contact_tag_assignments (contact_id, tag_id, organization_id)
       SELECT $1, t, $2 FROM unnest($3::uuid[]) AS t ORDER BY t
       ON CONFLICT (contact_id, tag_id) DO NOTHING`,
      [contactId, orgId, tags.map((t) => t.id)],
    );
  }

  /** Tag names of lists, for ListView. */
  async namesOfLists(orgId: string, listIds: string[]): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>(listIds.map((id) => [id, []]));
    if (!listIds.length) return out;
    const rows: { contact_list_id: string; name: string }[] = await this.ds.query(
      `SELECT lt.contact_list_id, t.name FROM contact_list_tags lt
         JOIN contact_tags t ON t.id = lt.tag_id
        WHERE t.organization_id = $1 AND lt.contact_list_id = ANY($2::uuid[])
        ORDER BY lower(t.name), t.id`,
      [orgId, listIds],
    );
    for (const r of rows) out.get(r.contact_list_id)?.push(r.name);
    return out;
  }

  /** Replaces a list's tags with the named ones. */
  async setListTags(em: EntityManager, orgId: string, listId: string, names: string[]) {
    const tags = await this.ensure(em, orgId, names);
    await em.query(`DELETE FROM contact_list_tags WHERE contact_list_id = $1`, [listId]);
    if (tags.length) {
      await em.query(
        `INSERT INTO contact_list_tags (contact_list_id, tag_id) SELECT $1, unnest($2::uuid[])`,
        [listId, tags.map((t) => t.id)],
      );
    }
  }
}
