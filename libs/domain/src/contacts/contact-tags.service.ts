// Tags of an organization (§5): names unique case-insensitively, created on first use.
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { OrgId } from '../common/org-id';
import { Page, PageRequest } from '../common/pagination';
import { ConflictError, NotFoundError } from '../errors/domain-errors';
import { ContactTag } from './contact-tag.entity';
import { ContactTagsRepository, isDuplicateTagName } from './contact-tags.repository';

/** Trimmed names, first spelling wins among case variants. */
export function uniqueTagNames(names: string[]): string[] {
  const seen = new Map<string, string>();
  for (const raw of names) {
    const name = raw.trim();
    if (name && !seen.has(name.toLowerCase())) seen.set(name.toLowerCase(), name);
  }
  return [...seen.values()];
}

function duplicateName(err: unknown): unknown {
  return isDuplicateTagName(err) ? new ConflictError('A tag with this name already exists') : err;
}

@Injectable()
export class ContactTagsService {
  constructor(private readonly repo: ContactTagsRepository) {}

  async list(orgId: OrgId, page: PageRequest): Promise<Page<ContactTag>> {
    const [items, total] = await this.repo.page(orgId, page);
    return new Page(items, total, page);
  }

  /** Every tag, id and name only. */
  all(orgId: OrgId): Promise<{ id: string; name: string }[]> {
    return this.repo.all(orgId);
  }

  async get(orgId: OrgId, id: string, em?: EntityManager): Promise<ContactTag> {
    const tag = await this.repo.get(orgId, id, em);
    if (!tag) throw new NotFoundError('Tag');
    return tag;
  }

  async create(orgId: OrgId, name: string): Promise<ContactTag> {
    const id = await this.repo.insert(orgId, name.trim()).catch((err: unknown) => {
      throw duplicateName(err);
    });
    return this.get(orgId, id);
  }

  async rename(orgId: OrgId, id: string, name: string): Promise<ContactTag> {
    await this.get(orgId, id);
    const found = await this.repo.rename(orgId, id, name.trim()).catch((err: unknown) => {
      throw duplicateName(err);
    });
    if (!found) throw new NotFoundError('Tag');
    return this.get(orgId, id);
  }

  /** Removes the tag from every contact and list too. */
  async delete(orgId: OrgId, id: string): Promise<void> {
    if (!(await this.repo.delete(orgId, id))) throw new NotFoundError('Tag');
  }

  /**
   * The tags with these names, created when missing (existing spellings are kept), held until the
   * transaction ends so that none is deleted while `em` puts it on contacts.
   */
  async ensure(em: EntityManager, orgId: OrgId, names: string[]): Promise<ContactTag[]> {
    const unique = uniqueTagNames(names);
    if (!unique.length) return [];
    const lower = unique.map((n) => n.toLowerCase());
    // Existing tags are read first: most names exist, and an INSERT ... ON CONFLICT meeting a tag
    // another transaction has just created waits for that transaction to end.
    const found = await this.repo.byNames(orgId, lower, em);
    if (found.length === unique.length) return found;
    await this.repo.insertMissing(orgId, unique, em);
    return this.repo.byNames(orgId, lower, em);
  }

  /** Adds the named tags to a contact (idempotent). */
  async assign(em: EntityManager, orgId: OrgId, contactId: string, names: string[]) {
    const tags = await this.ensure(em, orgId, names);
    const ids = tags.map((t) => t.id);
    await this.repo.assign(
      orgId,
      ids.map(() => contactId),
      ids,
      em,
    );
  }

  /** Removes one tag from a contact; 404 when the tag is not the organization's. */
  async unassign(em: EntityManager, orgId: OrgId, contactId: string, tagId: string) {
    await this.get(orgId, tagId, em);
    await this.repo.unassign(orgId, contactId, tagId, em);
  }

  /** Tag names of lists, for ListView. */
  namesOfLists(orgId: OrgId, listIds: string[]): Promise<Map<string, string[]>> {
    return this.repo.namesOfLists(orgId, listIds);
  }

  /** Replaces a list's tags with the named ones. */
  async setListTags(em: EntityManager, orgId: OrgId, listId: string, names: string[]) {
    const tags = await this.ensure(em, orgId, names);
    await this.repo.setListTags(
      orgId,
      listId,
      tags.map((t) => t.id),
      em,
    );
  }
}
