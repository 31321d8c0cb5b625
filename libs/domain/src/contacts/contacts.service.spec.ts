// The contacts service's rules with fake repositories: create (a batch of one through the bulk
// create, with the channel and tag services' real rules), update, delete, reads.
import type { DataSource, EntityManager } from 'typeorm';
import { Clock } from '../common/clock';
import { asOrgId } from '../common/org-id';
import { configureFieldEncryption, FieldCipher } from '../crypto/field-encryption';
import { ConflictError, NotFoundError, ValidationFailedError } from '../errors/domain-errors';
import type { ContactChannelsRepository } from './contact-channels.repository';
import { ContactChannelsService } from './contact-channels.service';
import type { ContactListsRepository } from './contact-lists.repository';
import type { ContactListsService } from './contact-lists.service';
import type { ContactTagsRepository } from './contact-tags.repository';
import { ContactTagsService } from './contact-tags.service';
import type { ContactPageRepository } from './contact-page.repository';
import type { ContactViewsRepository } from './contact-views.repository';
import type { ContactEvents } from './contact.events';
import { ContactsBulkService } from './contacts-bulk.service';
import type { ContactsRepository, NewContact } from './contacts.repository';
import { ContactsService } from './contacts.service';

const ORG = asOrgId('00000000-0000-4000-8000-000000000001');
const CONTACT = '00000000-0000-4000-8000-0000000000c1';
const em = { fake: 'em' } as unknown as EntityManager;
const AT = new Date('2030-05-01T10:00:00Z');

function setup(opts: { emailTaken?: boolean; contactExists?: boolean; lists?: string[] } = {}) {
  const log: string[] = [];
  const contacts = {
    insertMany: jest.fn(async (_o: string, rows: NewContact[]) => {
      log.push('insert contact');
      return rows;
    }),
    idsByEmailHash: jest.fn(async () => new Map()),
    emailTaken: jest.fn(async () => opts.emailTaken ?? false),
    lock: jest.fn(async (_o: string, ids: string[]) => (opts.contactExists === false ? [] : ids)),
    update: jest.fn(async () => undefined),
    delete: jest.fn(async () => undefined),
  };
  const channels = {
    count: jest.fn(async () => 0),
    insert: jest.fn(async (_o: string, channel: string, values: object) => {
      log.push(`insert ${channel}`);
      return values;
    }),
    insertEmails: jest.fn(async () => undefined),
    insertPhones: jest.fn(async () => undefined),
  };
  const tagRows: { id: string; name: string }[] = [{ id: 'tag-vip', name: 'VIP' }];
  const tagRepo = {
    byNames: jest.fn(async (_o: string, lower: string[]) =>
      tagRows.filter((t) => lower.includes(t.name.toLowerCase())),
    ),
    insertMissing: jest.fn(async (_o: string, names: string[]) => {
      for (const name of names)
        if (!tagRows.some((t) => t.name.toLowerCase() === name.toLowerCase()))
          tagRows.push({ id: `tag-${name.toLowerCase()}`, name });
    }),
    assign: jest.fn(async (_o: string, contactIds: string[]) => {
      if (contactIds.length) log.push('assign tags');
    }),
  };
  const listRepo = {
    lock: jest.fn(async (_o: string, ids: string[]) =>
      ids.filter((id) => (opts.lists ?? ids).includes(id)).map((id) => ({ id })),
    ),
    subscribe: jest.fn(async () => {
      log.push('subscribe');
      return 1;
    }),
  };
  const events = {
    changed: jest.fn(async (_em: EntityManager, _o: string, id: string, type: string) => {
      log.push(type);
      return { contact: { id }, tags: [] };
    }),
    deleted: jest.fn(async () => {
      log.push('contact.deleted');
    }),
    wake: jest.fn(() => log.push('wake')),
  };
  const views = { load: jest.fn(async () => []) };
  const lists = {
    removeContactIn: jest.fn(async () => {
      log.push('remove memberships');
    }),
  };
  const ds = {
    transaction: jest.fn(async (work: (em: EntityManager) => Promise<unknown>) => {
      const result = await work(em);
      log.push('commit');
      return result;
    }),
  } as unknown as DataSource;
  const clock: Clock = { now: () => AT };
  const channelService = new ContactChannelsService(
    ds,
    channels as unknown as ContactChannelsRepository,
    contacts as unknown as ContactsRepository,
    events as unknown as ContactEvents,
    clock,
  );
  const tags = new ContactTagsService(tagRepo as unknown as ContactTagsRepository);
  const bulk = new ContactsBulkService(
    contacts as unknown as ContactsRepository,
    channels as unknown as ContactChannelsRepository,
    channelService,
    listRepo as unknown as ContactListsRepository,
    tagRepo as unknown as ContactTagsRepository,
    tags,
    events as unknown as ContactEvents,
    clock,
  );
  const service = new ContactsService(
    ds,
    contacts as unknown as ContactsRepository,
    views as unknown as ContactViewsRepository,
    {} as ContactPageRepository,
    bulk,
    tags,
    lists as unknown as ContactListsService,
    events as unknown as ContactEvents,
  );
  const stored = () => contacts.insertMany.mock.calls[0][1][0];
  return { service, contacts, channels, tagRepo, listRepo, events, views, lists, log, stored };
}

beforeAll(() => configureFieldEncryption(new FieldCipher(Buffer.alloc(32, 7))));

describe('ContactsService', () => {
  describe('create', () => {
    it('stores the fields (names trimmed, display name from the first email, status active), records in channel order, then contact.created, committed before the wake', async () => {
      const s = setup();
      const view = await s.service.create(ORG, {
        firstName: '  ',
        notes: ' as given ',
        emails: [{ email: ' first@x.test ' }, { email: 'second@x.test', status: 'verified' }],
        smsNumbers: [{ phoneNumber: '+1 415 555 0100' }],
      });
      expect(s.stored()).toMatchObject({
        firstName: null,
        lastName: null,
        displayName: 'first@x.test',
        status: 'active',
        notes: ' as given ',
        channelMask: 1 | 2,
        tagIds: [],
      });
      expect(s.channels.insert.mock.calls.map((c) => [c[1], c[2]])).toEqual([
        ['email', expect.objectContaining({ email: 'first@x.test', isPrimary: true })],
        [
          'email',
          expect.objectContaining({ email: 'second@x.test', status: 'verified', verifiedAt: AT }),
        ],
        ['sms', expect.objectContaining({ phoneNumber: '+14155550100', countryCode: 'US' })],
      ]);
      expect(s.log).toEqual([
        'insert contact',
        'insert email',
        'insert email',
        'insert sms',
        'contact.created',
        'commit',
        'wake',
      ]);
      expect(view.contact.id).toBe(s.stored().id);
      expect(s.events.changed).toHaveBeenCalledWith(em, ORG, s.stored().id, 'contact.created');
    });

    it('keeps an explicit null status and a given display name (trimmed)', async () => {
      const s = setup();
      await s.service.create(ORG, { status: null, displayName: ' Shown ', firstName: 'Ann' });
      expect(s.stored()).toMatchObject({ status: null, displayName: 'Shown', firstName: 'Ann' });
    });

    it('a phone number that is none: 422 naming the record field, nothing emitted', async () => {
      const s = setup();
      const err = await s.service
        .create(ORG, { smsNumbers: [{ phoneNumber: '+1 415 555 0100' }, { phoneNumber: 'abc' }] })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ValidationFailedError);
      expect((err as ValidationFailedError).errors[0].field).toBe('smsNumbers.1.phoneNumber');
      expect(s.events.changed).not.toHaveBeenCalled();
      expect(s.events.wake).not.toHaveBeenCalled();
    });

    it("an email that is another contact's: 409", async () => {
      const s = setup({ emailTaken: true });
      await expect(s.service.create(ORG, { emails: [{ email: 'a@x.test' }] })).rejects.toThrow(
        ConflictError,
      );
      expect(s.contacts.emailTaken).toHaveBeenCalledWith(ORG, expect.any(Array), em);
    });

    it('creates missing tags and sets the tag ids at insert; subscribes the lists', async () => {
      const s = setup();
      await s.service.create(ORG, { tags: ['vip', ' New '], listIds: ['list-1'] });
      expect(s.tagRepo.insertMissing).toHaveBeenCalledWith(ORG, ['vip', 'New'], em);
      expect(s.stored().tagIds).toEqual(['tag-new', 'tag-vip']);
      const id = s.stored().id;
      // No existing contact to add tags to.
      expect(s.tagRepo.assign).toHaveBeenCalledWith(ORG, [], [], em);
      expect(s.listRepo.subscribe).toHaveBeenCalledWith(ORG, 'list-1', [id], AT, em);
    });

    it("a list that is not the organization's: 404, nothing emitted", async () => {
      const s = setup({ lists: [] });
      await expect(s.service.create(ORG, { listIds: ['other-org-list'] })).rejects.toThrow(
        'Contact list not found',
      );
      expect(s.listRepo.subscribe).not.toHaveBeenCalled();
      expect(s.events.changed).not.toHaveBeenCalled();
    });
  });

  describe('update', () => {
    it('changes only the given fields, names trimmed (blank clears), under a lock, then contact.updated', async () => {
      const s = setup();
      await s.service.update(ORG, CONTACT, {
        firstName: ' Ann ',
        lastName: '  ',
        timezone: null,
        notes: undefined,
      });
      expect(s.contacts.lock).toHaveBeenCalledWith(ORG, [CONTACT], 'FOR NO KEY UPDATE', em);
      expect(s.contacts.update).toHaveBeenCalledWith(
        ORG,
        CONTACT,
        { firstName: 'Ann', lastName: null, timezone: null },
        em,
      );
      expect(s.log.slice(-3)).toEqual(['contact.updated', 'commit', 'wake']);
    });

    it("a contact that is not the organization's: 404, nothing changed", async () => {
      const s = setup({ contactExists: false });
      await expect(s.service.update(ORG, CONTACT, { firstName: 'X' })).rejects.toThrow(
        NotFoundError,
      );
      expect(s.contacts.update).not.toHaveBeenCalled();
      expect(s.events.changed).not.toHaveBeenCalled();
    });
  });

  describe('delete', () => {
    it('locks the contact for update, removes its memberships, deletes it and emits contact.deleted', async () => {
      const s = setup();
      await s.service.delete(ORG, CONTACT);
      expect(s.contacts.lock).toHaveBeenCalledWith(ORG, [CONTACT], 'FOR UPDATE', em);
      expect(s.lists.removeContactIn).toHaveBeenCalledWith(em, ORG, CONTACT);
      expect(s.contacts.delete).toHaveBeenCalledWith(ORG, CONTACT, em);
      expect(s.log).toEqual(['remove memberships', 'contact.deleted', 'commit', 'wake']);
    });

    it('404 for a missing contact', async () => {
      const s = setup({ contactExists: false });
      await expect(s.service.delete(ORG, CONTACT)).rejects.toThrow(NotFoundError);
      expect(s.contacts.delete).not.toHaveBeenCalled();
    });
  });

  it('get: 404 when the organization has no such contact', async () => {
    const s = setup();
    await expect(s.service.get(ORG, CONTACT)).rejects.toThrow('Contact not found');
    expect(s.views.load).toHaveBeenCalledWith(ORG, [CONTACT], expect.any(Object));
  });
});
