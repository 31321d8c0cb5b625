// Tags (§5) with an in-memory repository: names unique in any letter case (409), created on first
// use with the existing spelling kept, and the 404 of a tag that is not the organization's.
import type { EntityManager } from 'typeorm';
import { asOrgId } from '../common/org-id';
import type { ContactTag } from './contact-tag.entity';
import type { ContactTagsRepository } from './contact-tags.repository';
import { ContactTagsService, uniqueTagNames } from './contact-tags.service';

const ORG = asOrgId('00000000-0000-4000-8000-000000000001');
const CONTACT = '00000000-0000-4000-8000-0000000000c1';
const LIST = '00000000-0000-4000-8000-0000000000a1';
const em = { name: 'transaction' } as unknown as EntityManager;

const duplicate = () =>
  Object.assign(new Error('duplicate key'), {
    code: '23505',
    constraint: 'contact_tags_org_name_uq',
  });

/** The organization's tags, unique by lower-case name as the database's index keeps them. */
class FakeTags {
  readonly rows = new Map<string, ContactTag>();
  private next = 0;

  constructor(names: string[] = []) {
    for (const name of names) this.add(name);
  }

  private add(name: string): string {
    if ([...this.rows.values()].some((t) => t.name.toLowerCase() === name.toLowerCase()))
      throw duplicate();
    const id = `tag-${++this.next}`;
    const at = new Date('2030-01-01T00:00:00Z');
    this.rows.set(id, {
      id,
      organizationId: ORG,
      name,
      contactCount: 0,
      createdAt: at,
      updatedAt: at,
    });
    return id;
  }

  page = jest.fn(async () => [[...this.rows.values()], this.rows.size] as [ContactTag[], number]);
  all = jest.fn(async () => [...this.rows.values()].map(({ id, name }) => ({ id, name })));
  get = jest.fn(async (_org: string, id: string, _em?: EntityManager) => this.rows.get(id) ?? null);
  insert = jest.fn(async (_org: string, name: string) => this.add(name));
  rename = jest.fn(async (_org: string, id: string, name: string) => {
    const tag = this.rows.get(id);
    if (!tag) return false;
    const taken = [...this.rows.values()].some(
      (t) => t.id !== id && t.name.toLowerCase() === name.toLowerCase(),
    );
    if (taken) throw duplicate();
    tag.name = name;
    return true;
  });
  delete = jest.fn(async (_org: string, id: string) => this.rows.delete(id));
  byNames = jest.fn(async (_org: string, lower: string[], _em: EntityManager) =>
    [...this.rows.values()].filter((t) => lower.includes(t.name.toLowerCase())),
  );
  insertMissing = jest.fn(async (_org: string, names: string[], _em: EntityManager) => {
    for (const name of names) {
      if (![...this.rows.values()].some((t) => t.name.toLowerCase() === name.toLowerCase()))
        this.add(name);
    }
  });
  assign = jest.fn(async (..._args: unknown[]) => undefined);
  unassign = jest.fn(async (..._args: unknown[]) => undefined);
  namesOfLists = jest.fn(async () => new Map<string, string[]>());
  setListTags = jest.fn(async (..._args: unknown[]) => undefined);
}

function setup(names: string[] = []) {
  const repo = new FakeTags(names);
  const service = new ContactTagsService(repo as unknown as ContactTagsRepository);
  return { service, repo };
}

describe('uniqueTagNames', () => {
  it('trims, drops empty names and keeps the first spelling of each name', () => {
    expect(uniqueTagNames([' VIP ', 'vip', '', '  ', 'Beta', 'BETA', 'gamma'])).toEqual([
      'VIP',
      'Beta',
      'gamma',
    ]);
  });
});

describe('ContactTagsService create, rename, delete', () => {
  it('creates a tag with the trimmed name', async () => {
    const { service, repo } = setup();
    const tag = await service.create(ORG, '  Customers ');
    expect(repo.insert).toHaveBeenCalledWith(ORG, 'Customers');
    expect(tag).toMatchObject({ name: 'Customers', organizationId: ORG });
  });

  it('refuses a name taken in another letter case with 409', async () => {
    const { service } = setup(['Customers']);
    await expect(service.create(ORG, 'CUSTOMERS')).rejects.toMatchObject({
      code: 'E_BUSINESS_RULE_VIOLATION',
      message: 'A tag with this name already exists',
    });
  });

  it('lets another database error through as it is', async () => {
    const { service, repo } = setup();
    const outage = Object.assign(new Error('connection reset'), { code: '08006' });
    repo.insert.mockRejectedValueOnce(outage);
    await expect(service.create(ORG, 'x')).rejects.toBe(outage);
  });

  it('renames a tag, refusing a taken name with 409 and an unknown tag with 404', async () => {
    const { service, repo } = setup(['Customers', 'Leads']);
    await expect(service.rename(ORG, 'tag-1', ' Clients ')).resolves.toMatchObject({
      id: 'tag-1',
      name: 'Clients',
    });
    expect(repo.rename).toHaveBeenCalledWith(ORG, 'tag-1', 'Clients');
    await expect(service.rename(ORG, 'tag-1', 'leads')).rejects.toMatchObject({
      code: 'E_BUSINESS_RULE_VIOLATION',
    });
    await expect(service.rename(ORG, 'tag-9', 'New')).rejects.toMatchObject({
      code: 'E_ROW_NOT_FOUND',
    });
    expect(repo.get).toHaveBeenCalledWith(ORG, 'tag-9', undefined);
  });

  it('answers 404 when the tag goes between the read and the rename', async () => {
    const { service, repo } = setup(['Customers']);
    repo.rename.mockResolvedValueOnce(false);
    await expect(service.rename(ORG, 'tag-1', 'Other')).rejects.toMatchObject({
      code: 'E_ROW_NOT_FOUND',
    });
  });

  it('deletes a tag, and answers 404 for one it cannot see', async () => {
    const { service, repo } = setup(['Customers']);
    await service.delete(ORG, 'tag-1');
    expect(repo.delete).toHaveBeenCalledWith(ORG, 'tag-1');
    await expect(service.delete(ORG, 'tag-1')).rejects.toMatchObject({ code: 'E_ROW_NOT_FOUND' });
  });
});

describe('ContactTagsService.ensure', () => {
  it('creates only the missing tags, and keeps the spelling of existing ones', async () => {
    const { service, repo } = setup(['VIP']);
    const tags = await service.ensure(em, ORG, ['vip', ' New ', 'new', '']);
    expect(tags.map((t) => t.name).sort()).toEqual(['New', 'VIP']);
    expect(repo.byNames).toHaveBeenCalledWith(ORG, ['vip', 'new'], em);
    expect(repo.insertMissing).toHaveBeenCalledWith(ORG, ['vip', 'New'], em);
  });

  it('writes nothing when every tag exists, and reads nothing for no names', async () => {
    const { service, repo } = setup(['VIP', 'Beta']);
    await expect(service.ensure(em, ORG, ['beta', 'vip'])).resolves.toHaveLength(2);
    expect(repo.insertMissing).not.toHaveBeenCalled();
    repo.byNames.mockClear();
    await expect(service.ensure(em, ORG, [' ', ''])).resolves.toEqual([]);
    expect(repo.byNames).not.toHaveBeenCalled();
  });
});

describe('ContactTagsService assignments', () => {
  it('assigns the named tags to a contact, creating the missing ones', async () => {
    const { service, repo } = setup(['VIP']);
    await service.assign(em, ORG, CONTACT, ['VIP', 'Beta']);
    const ids = [...repo.rows.values()].map((t) => t.id);
    expect(repo.assign).toHaveBeenCalledWith(ORG, [CONTACT, CONTACT], expect.any(Array), em);
    expect((repo.assign.mock.calls[0][2] as string[]).sort()).toEqual(ids.sort());
  });

  it("removes a tag from a contact, with 404 for a tag that is not the organization's", async () => {
    const { service, repo } = setup(['VIP']);
    await service.unassign(em, ORG, CONTACT, 'tag-1');
    expect(repo.get).toHaveBeenCalledWith(ORG, 'tag-1', em);
    expect(repo.unassign).toHaveBeenCalledWith(ORG, CONTACT, 'tag-1', em);
    await expect(service.unassign(em, ORG, CONTACT, 'tag-7')).rejects.toMatchObject({
      code: 'E_ROW_NOT_FOUND',
    });
    expect(repo.unassign).toHaveBeenCalledTimes(1);
  });

  it("replaces a list's tags with the named ones, and with none clears them", async () => {
    const { service, repo } = setup(['VIP']);
    await service.setListTags(em, ORG, LIST, ['vip']);
    expect(repo.setListTags).toHaveBeenLastCalledWith(ORG, LIST, ['tag-1'], em);
    await service.setListTags(em, ORG, LIST, []);
    expect(repo.setListTags).toHaveBeenLastCalledWith(ORG, LIST, [], em);
  });
});

describe('ContactTagsService reads', () => {
  it('pages the tags and lists them all', async () => {
    const { service, repo } = setup(['A', 'B']);
    const page = await service.list(ORG, { page: 1, limit: 10 });
    expect(repo.page).toHaveBeenCalledWith(ORG, { page: 1, limit: 10 });
    expect(page.total).toBe(2);
    await expect(service.all(ORG)).resolves.toEqual([
      { id: 'tag-1', name: 'A' },
      { id: 'tag-2', name: 'B' },
    ]);
  });
});
