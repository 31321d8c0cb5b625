// Channel records of a contact (§5) with fake repositories and events: the values each channel
// stores, the first record of a channel as primary, duplicates (409), field errors named with the
// caller's prefix, status stamps, and the events of each change.
import type { DataSource, EntityManager, ObjectLiteral } from 'typeorm';
import type { Clock } from '../common/clock';
import { asOrgId } from '../common/org-id';
import { configureFieldEncryption, FieldCipher } from '../crypto/field-encryption';
import type { ContactChannel } from './contact-channels.entity';
import type { ContactChannelsRepository } from './contact-channels.repository';
import { ContactChannelsService } from './contact-channels.service';
import type { ContactsRepository } from './contacts.repository';
import type { ContactEvents } from './contact.events';

const ORG = asOrgId('00000000-0000-4000-8000-000000000001');
const CONTACT = '00000000-0000-4000-8000-0000000000c1';
const RECORD = '00000000-0000-4000-8000-0000000000f1';
const NOW = new Date('2030-06-01T12:00:00Z');
const EARLIER = new Date('2030-01-01T00:00:00Z');

beforeAll(() => configureFieldEncryption(new FieldCipher(Buffer.alloc(32, 9))));

interface Options {
  /** Records the contact already has on the channel. */
  existing?: number;
  contactFound?: boolean;
  emailTaken?: boolean;
  stored?: ObjectLiteral | null;
}

function setup(opts: Options = {}) {
  const em = { name: 'transaction' } as unknown as EntityManager;
  const order: string[] = [];
  const ds = {
    transaction: jest.fn(async (work: (em: EntityManager) => Promise<unknown>) => {
      const out = await work(em);
      order.push('commit');
      return out;
    }),
  } as unknown as DataSource;
  const repo = {
    find: jest.fn(async (..._args: unknown[]) =>
      opts.stored === undefined ? { id: RECORD } : opts.stored,
    ),
    count: jest.fn(async (..._args: unknown[]) => opts.existing ?? 0),
    insert: jest.fn(
      async (
        _org: string,
        _channel: ContactChannel,
        values: ObjectLiteral,
        _em: EntityManager,
      ) => ({
        id: RECORD,
        ...values,
      }),
    ),
    findForUpdate: jest.fn(async (..._args: unknown[]) =>
      opts.stored === undefined
        ? { id: RECORD, status: 'unverified', verifiedAt: null }
        : opts.stored,
    ),
    update: jest.fn(
      async (
        _org: string,
        _channel: ContactChannel,
        _id: string,
        changes: ObjectLiteral,
        _em: EntityManager,
      ) => ({ ...(opts.stored ?? {}), id: RECORD, ...changes }),
    ),
    delete: jest.fn(async (..._args: unknown[]) => true),
  };
  const contacts = {
    lock: jest.fn(async (_org: string, ids: string[], _mode: string, _em: EntityManager) =>
      opts.contactFound === false ? [] : ids,
    ),
    emailTaken: jest.fn(async (_org: string, _hashes: string[], _em: EntityManager) =>
      Boolean(opts.emailTaken),
    ),
  };
  const events = {
    changed: jest.fn(async (..._args: unknown[]) => {
      order.push('changed');
      return {};
    }),
    pushTokenInvalidated: jest.fn(async (..._args: unknown[]) => undefined),
    wake: jest.fn(() => order.push('wake')),
  };
  const clock: Clock = { now: () => NOW };
  const service = new ContactChannelsService(
    ds,
    repo as unknown as ContactChannelsRepository,
    contacts as unknown as ContactsRepository,
    events as unknown as ContactEvents,
    clock,
  );
  return { service, repo, contacts, events, em, order };
}

/** The values handed to the repository's insert. */
const inserted = (repo: ReturnType<typeof setup>['repo']) => repo.insert.mock.calls[0][2];

describe('ContactChannelsService.get', () => {
  it('answers the record, and 404 with the channel label when the contact has none with that id', async () => {
    const { service, repo } = setup();
    await expect(service.get(ORG, CONTACT, 'sms', RECORD)).resolves.toEqual({ id: RECORD });
    expect(repo.find).toHaveBeenCalledWith(ORG, CONTACT, 'sms', RECORD);
    const missing = setup({ stored: null });
    await expect(missing.service.get(ORG, CONTACT, 'whatsapp', RECORD)).rejects.toMatchObject({
      code: 'E_ROW_NOT_FOUND',
      message: 'WhatsApp account not found',
    });
  });
});

describe('ContactChannelsService.create', () => {
  it('adds the record under the contact lock, announces contact.updated and wakes after the commit', async () => {
    const { service, repo, contacts, events, em, order } = setup();
    await service.create(ORG, CONTACT, 'email', { email: ' Ann@Example.com ' });
    expect(contacts.lock).toHaveBeenCalledWith(ORG, [CONTACT], 'FOR KEY SHARE', em);
    expect(repo.insert).toHaveBeenCalledWith(ORG, 'email', expect.any(Object), em);
    expect(events.changed).toHaveBeenCalledWith(em, ORG, CONTACT, 'contact.updated');
    expect(order).toEqual(['changed', 'commit', 'wake']);
  });

  it("answers 404 for a contact that is not the organization's, adding nothing", async () => {
    const { service, repo, events } = setup({ contactFound: false });
    await expect(
      service.create(ORG, CONTACT, 'email', { email: 'ann@example.com' }),
    ).rejects.toMatchObject({ code: 'E_ROW_NOT_FOUND', message: 'Contact not found' });
    expect(repo.insert).not.toHaveBeenCalled();
    expect(events.wake).not.toHaveBeenCalled();
  });
});

describe('ContactChannelsService.insertRecord', () => {
  it("makes a channel's first record primary, and a later one not", async () => {
    const first = setup({ existing: 0 });
    await first.service.insertRecord(first.em, ORG, CONTACT, 'email', { email: 'a@x.io' });
    expect(first.repo.count).toHaveBeenCalledWith(ORG, CONTACT, 'email', first.em);
    expect(inserted(first.repo)).toMatchObject({ contactId: CONTACT, isPrimary: true });
    const second = setup({ existing: 1 });
    await second.service.insertRecord(second.em, ORG, CONTACT, 'email', { email: 'b@x.io' });
    expect(inserted(second.repo)).toMatchObject({ isPrimary: false });
    const asked = setup({ existing: 3 });
    await asked.service.insertRecord(asked.em, ORG, CONTACT, 'email', {
      email: 'c@x.io',
      isPrimary: true,
    });
    expect(asked.repo.count).not.toHaveBeenCalled();
    expect(inserted(asked.repo)).toMatchObject({ isPrimary: true });
  });

  it('stores an email trimmed with fresh counters, stamping verifiedAt for a verified one', async () => {
    const { service, repo, em } = setup();
    await service.insertRecord(em, ORG, CONTACT, 'email', {
      email: ' ann@example.com ',
      status: 'verified',
    });
    expect(inserted(repo)).toEqual({
      contactId: CONTACT,
      isPrimary: true,
      email: 'ann@example.com',
      status: 'verified',
      bounceCount: 0,
      complaintCount: 0,
      verifiedAt: NOW,
      lastBouncedAt: null,
      lastComplainedAt: null,
    });
  });

  it('refuses an address another contact of the organization has with 409', async () => {
    const taken = setup({ emailTaken: true });
    await expect(
      taken.service.insertRecord(taken.em, ORG, CONTACT, 'email', { email: 'a@x.io' }),
    ).rejects.toMatchObject({
      code: 'E_BUSINESS_RULE_VIOLATION',
      message: 'A contact with this email address already exists',
    });
    expect(taken.contacts.emailTaken).toHaveBeenCalledWith(ORG, expect.any(Array), taken.em);
    expect(taken.repo.insert).not.toHaveBeenCalled();
    // A concurrent insert of the same address loses on the unique index: the same 409.
    const raced = setup();
    raced.repo.insert.mockRejectedValueOnce(
      Object.assign(new Error('duplicate key'), {
        code: '23505',
        constraint: 'contact_emails_organization_id_email_hash_key',
      }),
    );
    await expect(
      raced.service.insertRecord(raced.em, ORG, CONTACT, 'email', { email: 'a@x.io' }),
    ).rejects.toMatchObject({ code: 'E_BUSINESS_RULE_VIOLATION' });
  });

  it('stores an SMS number in E.164 with the country of its calling code', async () => {
    const { service, repo, em } = setup();
    await service.insertRecord(em, ORG, CONTACT, 'sms', {
      phoneNumber: '+1 (415) 555-0100',
      status: 'opted_out',
    });
    expect(inserted(repo)).toEqual({
      contactId: CONTACT,
      isPrimary: true,
      phoneNumber: '+14155550100',
      countryCode: 'US',
      status: 'opted_out',
      verifiedAt: null,
      optedOutAt: NOW,
    });
  });

  it("names a bad phone number or an underivable country with the caller's prefix", async () => {
    const { service, repo, em } = setup();
    await expect(
      service.insertRecord(em, ORG, CONTACT, 'sms', { phoneNumber: 'call me' }, 'smsNumbers.0.'),
    ).rejects.toMatchObject({
      code: 'E_VALIDATION_ERROR',
      errors: [{ field: 'smsNumbers.0.phoneNumber', rule: 'type', message: expect.any(String) }],
    });
    await expect(
      service.insertRecord(em, ORG, CONTACT, 'whatsapp', { phoneNumber: '+800 1234 5678' }),
    ).rejects.toMatchObject({
      errors: [expect.objectContaining({ field: 'countryCode', rule: 'required' })],
    });
    expect(repo.insert).not.toHaveBeenCalled();
  });

  it('keeps a given country code, in capitals', async () => {
    const { service, repo, em } = setup();
    await service.insertRecord(em, ORG, CONTACT, 'whatsapp', {
      phoneNumber: '+800 1234 5678',
      countryCode: 'gb',
    });
    expect(inserted(repo)).toMatchObject({
      phoneNumber: '+80012345678',
      countryCode: 'GB',
      status: 'unverified',
      isBusinessAccount: false,
      lastSeenAt: null,
      verifiedAt: null,
    });
  });

  it('stores a Telegram account active, with its username trimmed or null', async () => {
    const { service, repo, em } = setup();
    await service.insertRecord(em, ORG, CONTACT, 'telegram', {
      phoneNumber: '+14155550100',
      username: '   ',
    });
    expect(inserted(repo)).toMatchObject({
      phoneNumber: '+14155550100',
      username: null,
      status: 'active',
      lastActiveAt: null,
    });
  });

  it('stores an iMessage Apple id trimmed, and its phone number only when given', async () => {
    const { service, repo, em } = setup();
    await service.insertRecord(em, ORG, CONTACT, 'imessage', { appleId: ' ann@icloud.com ' });
    expect(inserted(repo)).toMatchObject({
      appleId: 'ann@icloud.com',
      phoneNumber: null,
      status: 'unverified',
      verifiedAt: null,
    });
  });

  it('stores a push registration active, with its optional fields null', async () => {
    const { service, repo, em } = setup();
    await service.insertRecord(em, ORG, CONTACT, 'push', {
      deviceToken: ' token-1 ',
      platform: 'ios',
    });
    expect(inserted(repo)).toEqual({
      contactId: CONTACT,
      isPrimary: true,
      deviceToken: 'token-1',
      platform: 'ios',
      status: 'active',
      appVersion: null,
      deviceInfo: null,
      lastUsedAt: null,
      expiresAt: null,
    });
  });
});

describe('ContactChannelsService.update', () => {
  it('stamps verifiedAt the first time a record becomes verified', async () => {
    const { service, repo, events, em } = setup({
      stored: { id: RECORD, status: 'unverified', verifiedAt: null },
    });
    await service.update(ORG, CONTACT, 'email', RECORD, {
      status: 'verified',
      isPrimary: undefined,
    });
    expect(repo.findForUpdate).toHaveBeenCalledWith(ORG, CONTACT, 'email', RECORD, em);
    expect(repo.update).toHaveBeenCalledWith(
      ORG,
      'email',
      RECORD,
      { status: 'verified', verifiedAt: NOW },
      em,
    );
    expect(events.changed).toHaveBeenCalledWith(em, ORG, CONTACT, 'contact.updated');
  });

  it('keeps an earlier stamp', async () => {
    const { service, repo } = setup({
      stored: { id: RECORD, status: 'unverified', verifiedAt: EARLIER, optedOutAt: null },
    });
    await service.update(ORG, CONTACT, 'sms', RECORD, { status: 'verified' });
    expect(repo.update.mock.calls[0][3]).toEqual({ status: 'verified' });
    await service.update(ORG, CONTACT, 'sms', RECORD, { status: 'opted_out' });
    expect(repo.update.mock.calls[1][3]).toEqual({ status: 'opted_out', optedOutAt: NOW });
  });

  it('announces push.token_invalidated when an active registration expires', async () => {
    const { service, events, em } = setup({
      stored: { id: RECORD, status: 'active', contactId: CONTACT, platform: 'android' },
    });
    await service.update(ORG, CONTACT, 'push', RECORD, { status: 'expired' });
    expect(events.pushTokenInvalidated).toHaveBeenCalledWith(
      em,
      ORG,
      expect.objectContaining({ id: RECORD, status: 'expired' }),
    );
    const inactive = setup({ stored: { id: RECORD, status: 'inactive' } });
    await inactive.service.update(ORG, CONTACT, 'push', RECORD, { status: 'expired' });
    expect(inactive.events.pushTokenInvalidated).not.toHaveBeenCalled();
    const still = setup({ stored: { id: RECORD, status: 'active' } });
    await still.service.update(ORG, CONTACT, 'push', RECORD, { appVersion: '2.0' });
    expect(still.events.pushTokenInvalidated).not.toHaveBeenCalled();
  });

  it('answers 404 with the label for a record the contact does not have', async () => {
    const { service, repo, events } = setup({ stored: null });
    await expect(
      service.update(ORG, CONTACT, 'telegram', RECORD, { status: 'blocked' }),
    ).rejects.toMatchObject({ code: 'E_ROW_NOT_FOUND', message: 'Telegram account not found' });
    expect(repo.update).not.toHaveBeenCalled();
    expect(events.changed).not.toHaveBeenCalled();
  });
});

describe('ContactChannelsService.delete', () => {
  it('deletes the record, announces contact.updated, and 404s a record that is not there', async () => {
    const { service, repo, events, em, order } = setup();
    await service.delete(ORG, CONTACT, 'imessage', RECORD);
    expect(repo.delete).toHaveBeenCalledWith(ORG, CONTACT, 'imessage', RECORD, em);
    expect(events.changed).toHaveBeenCalledWith(em, ORG, CONTACT, 'contact.updated');
    expect(order).toEqual(['changed', 'commit', 'wake']);
    repo.delete.mockResolvedValueOnce(false);
    await expect(service.delete(ORG, CONTACT, 'push', RECORD)).rejects.toMatchObject({
      code: 'E_ROW_NOT_FOUND',
    });
    expect(events.changed).toHaveBeenCalledTimes(1);
  });
});
