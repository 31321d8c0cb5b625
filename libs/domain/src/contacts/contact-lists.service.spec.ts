// Contact lists and memberships (§5) with fake repositories: the list fields, the default list
// that cannot go, the lock order of a subscription, the 404s of another organization's rows, and
// the contact.unsubscribed event of an unsubscribe that changed something.
import type { DataSource, EntityManager } from 'typeorm';
import type { Clock } from '../common/clock';
import { asOrgId } from '../common/org-id';
import type { ContactList } from './contact-list.entity';
import type { ContactListMembership } from './contact-list-membership.entity';
import type { ContactListsRepository } from './contact-lists.repository';
import { ContactListsService } from './contact-lists.service';
import type { ContactTagsService } from './contact-tags.service';
import type { ContactView } from './contact-views';
import type { ContactViewsRepository } from './contact-views.repository';
import type { ContactsRepository } from './contacts.repository';
import type { ContactEvents } from './contact.events';

const ORG = asOrgId('00000000-0000-4000-8000-000000000001');
const LIST = '00000000-0000-4000-8000-0000000000a1';
const LIST_B = '00000000-0000-4000-8000-0000000000a2';
const C1 = '00000000-0000-4000-8000-0000000000c1';
const C2 = '00000000-0000-4000-8000-0000000000c2';
const NOW = new Date('2030-06-01T12:00:00Z');

function list(fields: Partial<ContactList> = {}): ContactList {
  return {
    id: LIST,
    organizationId: ORG,
    cuid: 'abcdefghijklmnopqrstuvwx',
    name: 'Newsletter',
    description: null,
    status: 'active',
    preferredChannels: ['email'],
    isDefault: false,
    subscriberCount: 42,
    createdAt: NOW,
    updatedAt: NOW,
    ...fields,
  };
}

function membership(contactId: string, fields: Partial<ContactListMembership> = {}) {
  return {
    contactId,
    contactListId: LIST,
    status: 'subscribed',
    ...fields,
  } as ContactListMembership;
}

interface Options {
  /** Lists of the organization (id → is_default). */
  lists?: Record<string, boolean>;
  /** Contacts of the organization. */
  contacts?: string[];
  changed?: boolean;
}

function setup(opts: Options = {}) {
  const em = { name: 'transaction' } as unknown as EntityManager;
  const ds = {
    transaction: jest.fn((work: (em: EntityManager) => Promise<unknown>) => work(em)),
  } as unknown as DataSource;
  const lists = opts.lists ?? { [LIST]: false };
  const known = new Set(opts.contacts ?? [C1, C2]);
  const order: string[] = [];
  const repo = {
    page: jest.fn(async () => [[list()], 1] as [ContactList[], number]),
    get: jest.fn(async (_org: string, id: string) =>
      id in lists ? list({ id, isDefault: lists[id] }) : null,
    ),
    insert: jest.fn(async (_org: string, _l: unknown, _em: EntityManager) => LIST),
    update: jest.fn(async (..._args: unknown[]) => undefined),
    delete: jest.fn(async (..._args: unknown[]) => undefined),
    lock: jest.fn(async (_org: string, ids: string[], _em: EntityManager) => {
      order.push(`lists:${ids.join(',')}`);
      return ids.filter((id) => id in lists).map((id) => ({ id, is_default: lists[id] }));
    }),
    membersPage: jest.fn(async () => [membership(C1), membership(C2)]),
    countMembers: jest.fn(async (..._args: unknown[]) => 7),
    membershipsOf: jest.fn(async (_org: string, _list: string, ids: string[]) =>
      ids.map((id) => membership(id)),
    ),
    subscribe: jest.fn(
      async (_org: string, listId: string, ids: string[], _at: Date, _em: EntityManager) => {
        order.push(`subscribe:${listId}`);
        return ids.length;
      },
    ),
    unsubscribe: jest.fn(async (..._args: unknown[]) => opts.changed ?? true),
    membership: jest.fn(async (_org: string, _list: string, contactId: string) =>
      known.has(contactId)
        ? membership(contactId, { status: 'unsubscribed' })
        : (null as ContactListMembership | null),
    ),
    removeMember: jest.fn(async (..._args: unknown[]) => true),
    listIdsOf: jest.fn(async (..._args: unknown[]) => [LIST_B, LIST]),
    removeContact: jest.fn(async (..._args: unknown[]) => {
      order.push('removeContact');
    }),
  };
  const tags = {
    namesOfLists: jest.fn(
      async (_org: string, ids: string[]) => new Map(ids.map((id) => [id, ['vip']])),
    ),
    setListTags: jest.fn(async (..._args: unknown[]) => undefined),
  };
  const contacts = {
    lock: jest.fn(async (_org: string, ids: string[], _mode: string, _em: EntityManager) => {
      order.push(`contacts:${ids.join(',')}`);
      return ids.filter((id) => known.has(id));
    }),
  };
  const views = {
    load: jest.fn(async (_org: string, ids: string[]) =>
      ids.filter((id) => id !== C2).map((id) => ({ contact: { id } }) as ContactView),
    ),
  };
  const events = {
    unsubscribed: jest.fn(async (..._args: unknown[]) => undefined),
    wake: jest.fn(),
  };
  const clock: Clock = { now: () => NOW };
  const service = new ContactListsService(
    ds,
    repo as unknown as ContactListsRepository,
    tags as unknown as ContactTagsService,
    contacts as unknown as ContactsRepository,
    views as unknown as ContactViewsRepository,
    events as unknown as ContactEvents,
    clock,
  );
  return { service, repo, tags, contacts, views, events, em, order };
}

describe('ContactListsService lists', () => {
  it('creates a list with its defaults and answers it with its tags', async () => {
    const { service, repo, tags, em } = setup();
    const view = await service.create(ORG, { name: '  Newsletter ', tags: ['vip'] });
    const [org, fields, tx] = repo.insert.mock.calls[0];
    expect([org, tx]).toEqual([ORG, em]);
    expect(fields).toEqual({
      cuid: expect.stringMatching(/^[a-z][a-z0-9]{23}$/),
      name: 'Newsletter',
      description: null,
      status: 'active',
      preferredChannels: ['email'],
    });
    expect(tags.setListTags).toHaveBeenCalledWith(em, ORG, LIST, ['vip']);
    expect(view).toEqual({ list: list(), tags: ['vip'] });
  });

  it('keeps each preferred channel once, and sets no tags when none are given', async () => {
    const { service, repo, tags } = setup();
    await service.create(ORG, { name: 'SMS', preferredChannels: ['sms', 'email', 'sms'] });
    expect(repo.insert.mock.calls[0][1]).toMatchObject({ preferredChannels: ['sms', 'email'] });
    expect(tags.setListTags).not.toHaveBeenCalled();
  });

  it('answers 404 for a list it cannot see', async () => {
    const { service, repo } = setup({ lists: {} });
    await expect(service.get(ORG, LIST)).rejects.toMatchObject({ code: 'E_ROW_NOT_FOUND' });
    expect(repo.get).toHaveBeenCalledWith(ORG, LIST);
    await expect(service.update(ORG, LIST, { name: 'x' })).rejects.toMatchObject({
      code: 'E_ROW_NOT_FOUND',
    });
    expect(repo.update).not.toHaveBeenCalled();
    await expect(service.delete(ORG, LIST)).rejects.toMatchObject({ code: 'E_ROW_NOT_FOUND' });
    expect(repo.delete).not.toHaveBeenCalled();
  });

  it('changes only the fields given, under the list lock; empty tags clear them', async () => {
    const { service, repo, tags, em, order } = setup();
    await service.update(ORG, LIST, { name: ' Renamed ', description: null, tags: [] });
    expect(order).toEqual([`lists:${LIST}`]);
    expect(repo.update).toHaveBeenCalledWith(ORG, LIST, { name: 'Renamed', description: null }, em);
    expect(tags.setListTags).toHaveBeenCalledWith(em, ORG, LIST, []);
    await service.update(ORG, LIST, { preferredChannels: ['push', 'push'] });
    expect(repo.update).toHaveBeenLastCalledWith(ORG, LIST, { preferredChannels: ['push'] }, em);
    expect(tags.setListTags).toHaveBeenCalledTimes(1);
  });

  it('refuses to delete the default list with 409', async () => {
    const { service, repo, em } = setup({ lists: { [LIST]: true, [LIST_B]: false } });
    await expect(service.delete(ORG, LIST)).rejects.toMatchObject({
      code: 'E_BUSINESS_RULE_VIOLATION',
      message: 'The default list cannot be deleted',
    });
    expect(repo.delete).not.toHaveBeenCalled();
    await service.delete(ORG, LIST_B);
    expect(repo.delete).toHaveBeenCalledWith(ORG, LIST_B, em);
  });
});

describe('ContactListsService.members', () => {
  it('counts subscribed members from the maintained counter', async () => {
    const { service, repo, views } = setup();
    const page = await service.members(ORG, LIST, { page: 1, limit: 10 }, 'subscribed');
    expect(page.total).toBe(42);
    expect(repo.countMembers).not.toHaveBeenCalled();
    expect(views.load).toHaveBeenCalledWith(ORG, [C1, C2], { channels: ['email'], tags: true });
    expect(page.items.map((m) => m.contact?.contact.id)).toEqual([C1, undefined]);
  });

  it('counts other memberships on the index, and answers 404 for an unknown list', async () => {
    const { service, repo } = setup();
    const page = await service.members(ORG, LIST, { page: 1, limit: 10 }, 'unsubscribed');
    expect(repo.countMembers).toHaveBeenCalledWith(ORG, LIST, 'unsubscribed');
    expect(page.total).toBe(7);
    await expect(service.members(ORG, LIST_B, { page: 1, limit: 10 })).rejects.toMatchObject({
      code: 'E_ROW_NOT_FOUND',
    });
  });
});

describe('ContactListsService subscriptions', () => {
  it('locks the contacts, then the lists, then subscribes each list in id order', async () => {
    const { service, contacts, em, order } = setup({ lists: { [LIST]: false, [LIST_B]: false } });
    await expect(service.subscribeIn(em, ORG, [LIST_B, LIST], [C2, C1, C2])).resolves.toBe(4);
    expect(contacts.lock).toHaveBeenCalledWith(ORG, [C2, C1], 'FOR KEY SHARE', em);
    expect(order).toEqual([
      `contacts:${C2},${C1}`,
      `lists:${LIST_B},${LIST}`,
      `subscribe:${LIST}`,
      `subscribe:${LIST_B}`,
    ]);
  });

  it("answers 404 when a contact or a list is not the organization's, subscribing nothing", async () => {
    const stranger = setup({ contacts: [C1] });
    await expect(stranger.service.subscribe(ORG, LIST, [C1, C2])).rejects.toMatchObject({
      code: 'E_ROW_NOT_FOUND',
      message: 'Contact not found',
    });
    expect(stranger.repo.subscribe).not.toHaveBeenCalled();
    const noList = setup({ lists: {} });
    await expect(noList.service.subscribe(ORG, LIST, [C1])).rejects.toMatchObject({
      code: 'E_ROW_NOT_FOUND',
      message: 'Contact list not found',
    });
    expect(noList.repo.subscribe).not.toHaveBeenCalled();
  });

  it('does nothing for no contacts or no lists', async () => {
    const { service, contacts, em } = setup();
    await expect(service.subscribeIn(em, ORG, [LIST], [])).resolves.toBe(0);
    await expect(service.subscribeIn(em, ORG, [], [C1])).resolves.toBe(0);
    expect(contacts.lock).not.toHaveBeenCalled();
  });

  it('answers the memberships of the contacts subscribed, each once', async () => {
    const { service, repo } = setup();
    const memberships = await service.subscribe(ORG, LIST, [C1, C1, C2]);
    expect(repo.subscribe).toHaveBeenCalledWith(ORG, LIST, [C1, C2], NOW, expect.anything());
    expect(repo.membershipsOf).toHaveBeenCalledWith(ORG, LIST, [C1, C2]);
    expect(memberships).toHaveLength(2);
  });

  it('announces an unsubscribe that changed the membership, and wakes after the commit', async () => {
    const { service, repo, events, em } = setup();
    const m = await service.unsubscribe(ORG, LIST, C1, 'moved away');
    expect(repo.unsubscribe).toHaveBeenCalledWith(ORG, LIST, C1, NOW, 'moved away', em);
    expect(events.unsubscribed).toHaveBeenCalledWith(em, ORG, C1, LIST);
    expect(events.wake).toHaveBeenCalled();
    expect(m.status).toBe('unsubscribed');
  });

  it('announces nothing for a repeat, and answers 404 for a contact that is not a member', async () => {
    const repeat = setup({ changed: false });
    await repeat.service.unsubscribe(ORG, LIST, C1, null);
    expect(repeat.events.unsubscribed).not.toHaveBeenCalled();
    const stranger = setup({ changed: false, contacts: [] });
    await expect(stranger.service.unsubscribe(ORG, LIST, C1, null)).rejects.toMatchObject({
      code: 'E_ROW_NOT_FOUND',
      message: 'Membership not found',
    });
  });

  it('removes a member, with 404 when there is no membership', async () => {
    const { service, repo, em } = setup();
    await service.removeMember(ORG, LIST, C1);
    expect(repo.removeMember).toHaveBeenCalledWith(ORG, LIST, C1, em);
    repo.removeMember.mockResolvedValueOnce(false);
    await expect(service.removeMember(ORG, LIST, C2)).rejects.toMatchObject({
      code: 'E_ROW_NOT_FOUND',
    });
  });

  it("removes a deleted contact's memberships under its lists' locks", async () => {
    const { service, repo, em, order } = setup({ lists: { [LIST]: false, [LIST_B]: false } });
    await service.removeContactIn(em, ORG, C1);
    expect(repo.listIdsOf).toHaveBeenCalledWith(ORG, C1, em);
    expect(order).toEqual([`lists:${LIST_B},${LIST}`, 'removeContact']);
    expect(repo.removeContact).toHaveBeenCalledWith(ORG, C1, em);
    const none = setup();
    none.repo.listIdsOf.mockResolvedValueOnce([]);
    await none.service.removeContactIn(em, ORG, C1);
    expect(none.repo.lock).not.toHaveBeenCalled();
    expect(none.repo.removeContact).not.toHaveBeenCalled();
  });
});

describe("ContactListsService in the caller's transaction", () => {
  function inTransaction(locked: string[]) {
    const em = { name: 'caller' } as unknown as EntityManager;
    const order: string[] = [];
    const repo = {
      insertDefault: jest.fn(async (_org: string, _cuid: string, _em: EntityManager) => undefined),
      lockSubscribedLists: jest.fn(async (..._args: unknown[]) => {
        order.push('lock');
        return locked;
      }),
      unsubscribeFromLists: jest.fn(async (_org: string, _c: string, ids: string[]) => {
        order.push('unsubscribe');
        return ids.slice(0, 1);
      }),
    };
    const service = new ContactListsService(
      {} as DataSource,
      repo as unknown as ContactListsRepository,
      {} as ContactTagsService,
      {} as ContactsRepository,
      {} as ContactViewsRepository,
      {} as ContactEvents,
    );
    return { service, repo, em, order };
  }

  it("creates the organization's default list with a fresh cuid", async () => {
    const { service, repo, em } = inTransaction([]);
    await service.createDefaultIn(em, ORG);
    await service.createDefaultIn(em, ORG);
    expect(repo.insertDefault).toHaveBeenCalledWith(ORG, expect.any(String), em);
    const [a, b] = repo.insertDefault.mock.calls.map((c) => c[1]);
    expect(a).not.toBe(b);
  });

  it('unsubscribes from the locked lists and answers those that changed', async () => {
    const { service, repo, em, order } = inTransaction([LIST, LIST_B]);
    await expect(service.unsubscribeIn(em, ORG, C1, null, 'complaint', NOW)).resolves.toEqual([
      LIST,
    ]);
    expect(repo.lockSubscribedLists).toHaveBeenCalledWith(ORG, C1, null, em);
    expect(repo.unsubscribeFromLists).toHaveBeenCalledWith(
      ORG,
      C1,
      [LIST, LIST_B],
      NOW,
      'complaint',
      em,
    );
    expect(order).toEqual(['lock', 'unsubscribe']);
  });

  it('changes nothing when the contact is subscribed to none of the lists', async () => {
    const { service, repo, em } = inTransaction([]);
    await expect(service.unsubscribeIn(em, ORG, C1, LIST, 'one-click', NOW)).resolves.toEqual([]);
    expect(repo.lockSubscribedLists).toHaveBeenCalledWith(ORG, C1, LIST, em);
    expect(repo.unsubscribeFromLists).not.toHaveBeenCalled();
  });
});
