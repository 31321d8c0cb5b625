// The bulk create's rules, with fake repositories: duplicates, merge and update mode, what the
// first step writes and what waits for `finish`, records, tags, lists and events.
import type { EntityManager } from 'typeorm';
import { Clock } from '../common/clock';
import { asOrgId } from '../common/org-id';
import { NotFoundError } from '../errors/domain-errors';
import type { ContactChannelsRepository } from './contact-channels.repository';
import type { ContactChannelsService } from './contact-channels.service';
import type { ContactListsRepository } from './contact-lists.repository';
import type { ContactTagsRepository } from './contact-tags.repository';
import { ContactTagsService, uniqueTagNames } from './contact-tags.service';
import type { ContactEvents } from './contact.events';
import {
  BulkCreateOptions,
  ContactsBulkService,
  NewContactRow,
  SealedPhoneNumber,
} from './contacts-bulk.service';
import type { ContactsRepository, NewContact } from './contacts.repository';

const ORG = asOrgId('00000000-0000-4000-8000-000000000001');
const em = { fake: 'em' } as unknown as EntityManager;
const AT = new Date('2030-05-01T10:00:00Z');

/** A row with a sealed email (hash `h:<address>`) and the given fields. */
function row(email: string | null, more: Partial<NewContactRow> = {}): NewContactRow {
  return {
    fields: {},
    emailAddress: email,
    email: email ? { enc: `enc:${email}`, hash: `h:${email}`, candidates: [`h:${email}`] } : null,
    phones: {},
    tags: [],
    ...more,
  };
}

const phone = (n: string): SealedPhoneNumber => ({
  enc: `enc:${n}`,
  hash: `h:${n}`,
  countryCode: 'US',
});

function setup(existing: Record<string, string> = {}, listsFound?: string[]) {
  const tagIds = new Map<string, string>();
  const contacts = {
    idsByEmailHash: jest.fn(
      async (_org: string, hashes: string[]) =>
        new Map(hashes.filter((h) => existing[h]).map((h) => [h, existing[h]])),
    ),
    insertMany: jest.fn(async () => undefined),
    overwriteMany: jest.fn(async () => undefined),
  };
  const channels = {
    insertEmails: jest.fn(async () => undefined),
    insertPhones: jest.fn(async () => undefined),
  };
  const records = { insertRecord: jest.fn(async () => ({})) };
  const lists = {
    lock: jest.fn(async (_org: string, ids: string[]) =>
      (listsFound ?? ids).map((id) => ({ id, is_default: false })),
    ),
    subscribe: jest.fn(async () => 1),
  };
  const tagRepo = { assign: jest.fn(async () => undefined) };
  const tags = {
    ensure: jest.fn(async (_em: EntityManager, _org: string, names: string[]) =>
      uniqueTagNames(names).map((name) => {
        const key = name.toLowerCase();
        if (!tagIds.has(key)) tagIds.set(key, `0000000${tagIds.size}-tag`);
        return { id: tagIds.get(key)!, name };
      }),
    ),
  };
  const events = {
    changed: jest.fn(async (_em: EntityManager, _org: string, id: string) => ({
      contact: { id },
      tags: [],
    })),
  };
  const clock: Clock = { now: () => AT };
  const service = new ContactsBulkService(
    contacts as unknown as ContactsRepository,
    channels as unknown as ContactChannelsRepository,
    records as unknown as ContactChannelsService,
    lists as unknown as ContactListsRepository,
    tagRepo as unknown as ContactTagsRepository,
    tags as unknown as ContactTagsService,
    events as unknown as ContactEvents,
    clock,
  );
  const inserted = () =>
    (contacts.insertMany.mock.calls as unknown[][]).flatMap((c) => c[1] as NewContact[]);
  return { service, contacts, channels, records, lists, tagRepo, tags, events, inserted, tagIds };
}

const SKIP: BulkCreateOptions = { duplicates: 'skip', tags: [], listIds: [], events: false };

/** A mock's calls, argument by argument. */
const callsOf = (m: jest.Mock) => m.mock.calls as unknown[][];

describe('ContactsBulkService', () => {
  it('inserts new contacts in one statement per table: names trimmed, display name derived, status active unless given', async () => {
    const s = setup();
    await s.service.createMany(
      em,
      ORG,
      [
        row('ann@x.test', { fields: { firstName: '  Ann ', lastName: ' ' } }),
        row('bob@x.test', { fields: { status: null, displayName: ' Bobby ' } }),
        row(null, { fields: { status: 'archived' }, phones: { sms: phone('+14155550001') } }),
      ],
      SKIP,
    );
    expect(s.contacts.insertMany).toHaveBeenCalledTimes(1);
    const [ann, bob, third] = s.inserted();
    expect(ann).toMatchObject({
      firstName: 'Ann',
      lastName: null,
      displayName: 'Ann',
      status: 'active',
      channelMask: 1,
    });
    expect(bob).toMatchObject({ displayName: 'Bobby', status: null, channelMask: 1 });
    expect(third).toMatchObject({ displayName: 'Unnamed Contact', status: 'archived' });
    expect(third.channelMask).toBe(2);
    expect(s.channels.insertEmails).toHaveBeenCalledTimes(1);
    expect(s.channels.insertEmails).toHaveBeenCalledWith(
      ORG,
      [
        { contactId: ann.id, enc: 'enc:ann@x.test', hash: 'h:ann@x.test' },
        { contactId: bob.id, enc: 'enc:bob@x.test', hash: 'h:bob@x.test' },
      ],
      em,
    );
    const sms = callsOf(s.channels.insertPhones).find((c) => c[1] === 'sms')!;
    expect(sms).toEqual([
      ORG,
      'sms',
      [expect.objectContaining({ contactId: third.id, first: true, hash: 'h:+14155550001' })],
      false,
      em,
    ]);
  });

  it('derives the display name from the email when there is no name', async () => {
    const s = setup();
    await s.service.createMany(em, ORG, [row('carol@x.test')], SKIP);
    expect(s.inserted()[0].displayName).toBe('carol@x.test');
  });

  it('looks up every key of every email, locked for key share in skip mode', async () => {
    const s = setup({ 'h:old@x.test': 'c-old' });
    const rotated = row('old@x.test');
    rotated.email!.candidates = ['h:old@x.test', 'h2:old@x.test'];
    const write = await s.service.begin(em, ORG, [rotated, row('new@x.test')], SKIP);
    expect(s.contacts.idsByEmailHash).toHaveBeenCalledWith(
      ORG,
      ['h:old@x.test', 'h2:old@x.test', 'h:new@x.test'],
      'FOR KEY SHARE',
      em,
    );
    expect(write).toMatchObject({ newCount: 1, duplicateCount: 1 });
    expect(s.inserted().map((c) => c.displayName)).toEqual(['new@x.test']);
  });

  it('begin writes only the new contacts and their records; finish writes what other transactions write too', async () => {
    const s = setup({ 'h:old@x.test': 'c-old' });
    const write = await s.service.begin(
      em,
      ORG,
      [row('old@x.test', { fields: { firstName: 'New name' }, tags: ['vip'] }), row('new@x.test')],
      { duplicates: 'update', tags: ['imported'], listIds: ['list-1'], events: false },
    );
    expect(s.contacts.insertMany).toHaveBeenCalledTimes(1);
    expect(s.contacts.overwriteMany).not.toHaveBeenCalled();
    expect(s.lists.lock).not.toHaveBeenCalled();
    expect(s.lists.subscribe).not.toHaveBeenCalled();
    expect(s.tagRepo.assign).not.toHaveBeenCalled();
    await write.finish();
    expect(s.contacts.overwriteMany).toHaveBeenCalledTimes(1);
    expect(s.lists.subscribe).toHaveBeenCalledTimes(1);
    expect(s.tagRepo.assign).toHaveBeenCalledTimes(1);
  });

  it('update mode overwrites existing contacts with their values, locked for no key update, and adds the numbers they lack as existing records', async () => {
    const s = setup({ 'h:old@x.test': 'c-old' });
    await s.service.createMany(
      em,
      ORG,
      [
        row('old@x.test', {
          fields: { firstName: 'Fresh', status: undefined, customFields: { plan: 'pro' } },
          phones: { whatsapp: phone('+14155550009') },
        }),
      ],
      { ...SKIP, duplicates: 'update' },
    );
    expect(callsOf(s.contacts.idsByEmailHash)[0][2]).toBe('FOR NO KEY UPDATE');
    expect(s.contacts.insertMany).toHaveBeenCalledWith(ORG, [], em);
    expect(s.contacts.overwriteMany).toHaveBeenCalledWith(
      ORG,
      [
        {
          id: 'c-old',
          firstName: 'Fresh',
          lastName: null,
          timezone: null,
          language: null,
          status: null,
          notes: null,
          customFields: { plan: 'pro' },
        },
      ],
      em,
    );
    const existingPhones = callsOf(s.channels.insertPhones).filter((c) => c[3] === true);
    expect(existingPhones.find((c) => c[1] === 'whatsapp')![2]).toEqual([
      expect.objectContaining({ contactId: 'c-old', hash: 'h:+14155550009', first: true }),
    ]);
  });

  it("skip mode leaves an existing contact's fields and numbers, and still gives it the tags and lists", async () => {
    const s = setup({ 'h:old@x.test': 'c-old' });
    await s.service.createMany(
      em,
      ORG,
      [row('old@x.test', { fields: { firstName: 'Ignored' }, phones: { sms: phone('+1') } })],
      { ...SKIP, tags: ['t'], listIds: ['list-1'] },
    );
    expect(s.contacts.overwriteMany).not.toHaveBeenCalled();
    for (const call of callsOf(s.channels.insertPhones)) expect(call[2]).toEqual([]);
    expect(s.lists.subscribe).toHaveBeenCalledWith(ORG, 'list-1', ['c-old'], AT, em);
    expect(s.tagRepo.assign).toHaveBeenCalledWith(ORG, ['c-old'], [s.tagIds.get('t')], em);
  });

  it("gives every contact the options' tags and each row's own: new contacts' tag ids are set at insert, existing ones' are added to", async () => {
    const s = setup({ 'h:old@x.test': 'c-old' });
    await s.service.createMany(
      em,
      ORG,
      [row('a@x.test', { tags: [' VIP '] }), row('old@x.test', { tags: ['vip', 'Other'] })],
      { ...SKIP, tags: ['Imported'] },
    );
    const id = (n: string) => s.tagIds.get(n)!;
    expect(s.inserted()[0].tagIds).toEqual([id('imported'), id('vip')].sort());
    expect(s.tagRepo.assign).toHaveBeenCalledTimes(1);
    expect(s.tagRepo.assign).toHaveBeenCalledWith(
      ORG,
      ['c-old', 'c-old', 'c-old'],
      [id('imported'), id('vip'), id('other')].sort(),
      em,
    );
  });

  it('subscribes every contact to each list, in id order, after locking them', async () => {
    const s = setup();
    await s.service.createMany(em, ORG, [row('a@x.test'), row('b@x.test')], {
      ...SKIP,
      listIds: ['list-b', 'list-a', 'list-b'],
    });
    expect(s.lists.lock).toHaveBeenCalledWith(ORG, ['list-a', 'list-b'], em);
    const ids = s.inserted().map((c) => c.id);
    expect(callsOf(s.lists.subscribe).map((c) => [c[1], c[2]])).toEqual([
      ['list-a', ids],
      ['list-b', ids],
    ]);
  });

  it("a list that is not the organization's: 404 by default, the caller's error when given", async () => {
    const s = setup({}, []);
    await expect(
      s.service.createMany(em, ORG, [row('a@x.test')], { ...SKIP, listIds: ['gone'] }),
    ).rejects.toThrow(NotFoundError);
    const gone = new Error('the list was deleted');
    await expect(
      s.service.createMany(em, ORG, [row('a@x.test')], {
        ...SKIP,
        listIds: ['gone'],
        missingList: () => gone,
      }),
    ).rejects.toBe(gone);
    expect(s.lists.subscribe).not.toHaveBeenCalled();
  });

  it("inserts records given as the API takes them by their channel's rules, in channel order, with the field names' prefix", async () => {
    const s = setup();
    await s.service.createMany(
      em,
      ORG,
      [
        row(null, {
          emailAddress: 'first@x.test',
          records: {
            push: [{ deviceToken: 'tok', platform: 'ios' }],
            email: [{ email: 'first@x.test' }, { email: 'second@x.test', isPrimary: true }],
          },
        }),
      ],
      SKIP,
    );
    const [c] = s.inserted();
    expect(c.displayName).toBe('first@x.test');
    expect(c.channelMask).toBe(1 | 32);
    expect(callsOf(s.records.insertRecord).map((call) => [call[3], call[5]])).toEqual([
      ['email', 'emails.0.'],
      ['email', 'emails.1.'],
      ['push', 'pushNotifications.0.'],
    ]);
    expect(callsOf(s.records.insertRecord)[1]).toEqual([
      em,
      ORG,
      c.id,
      'email',
      { email: 'second@x.test', isPrimary: true },
      'emails.1.',
    ]);
  });

  it('a record its channel refuses fails the whole create', async () => {
    const s = setup();
    s.records.insertRecord.mockRejectedValueOnce(new Error('422 smsNumbers.0.phoneNumber'));
    await expect(
      s.service.createMany(em, ORG, [row(null, { records: { sms: [{ phoneNumber: 'x' }] } })], {
        ...SKIP,
        events: true,
      }),
    ).rejects.toThrow('smsNumbers.0.phoneNumber');
    expect(s.events.changed).not.toHaveBeenCalled();
  });

  it('events on: contact.created for each new contact after every write, views answered; none for duplicates or with events off', async () => {
    const s = setup({ 'h:old@x.test': 'c-old' });
    const views = await s.service.createMany(em, ORG, [row('a@x.test'), row('old@x.test')], {
      ...SKIP,
      tags: ['t'],
      events: true,
    });
    const [c] = s.inserted();
    expect(s.events.changed).toHaveBeenCalledTimes(1);
    expect(s.events.changed).toHaveBeenCalledWith(em, ORG, c.id, 'contact.created');
    expect(views.map((v) => v.contact.id)).toEqual([c.id]);
    expect(s.events.changed.mock.invocationCallOrder[0]).toBeGreaterThan(
      Math.max(...s.tagRepo.assign.mock.invocationCallOrder),
    );

    const quiet = setup();
    expect(await quiet.service.createMany(em, ORG, [row('a@x.test')], SKIP)).toEqual([]);
    expect(quiet.events.changed).not.toHaveBeenCalled();
  });

  it("passes the organization's id to every statement", async () => {
    const s = setup({ 'h:old@x.test': 'c-old' });
    await s.service.createMany(
      em,
      ORG,
      [row('old@x.test', { phones: { sms: phone('+1') } }), row('a@x.test', { tags: ['t'] })],
      { duplicates: 'update', tags: [], listIds: ['l'], events: false },
    );
    const mocks = [
      s.contacts.idsByEmailHash,
      s.contacts.insertMany,
      s.contacts.overwriteMany,
      s.channels.insertEmails,
      s.channels.insertPhones,
      s.lists.lock,
      s.lists.subscribe,
      s.tagRepo.assign,
    ];
    for (const m of mocks) {
      expect(m).toHaveBeenCalled();
      for (const call of m.mock.calls as unknown[][]) expect(call[0]).toBe(ORG);
    }
    expect(callsOf(s.tags.ensure)[0][1]).toBe(ORG);
  });
});
