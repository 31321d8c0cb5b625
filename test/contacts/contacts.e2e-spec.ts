// Contact CRUD, channel records and contact tags (§5): exact field sets, displayName, 409 on a
// duplicate email, isPrimary never demotes, encrypted values immutable, status lists per channel.
import { INestApplication } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { asOrgId, ContactsRepository } from '@app/domain';
import { createTestApp } from '../support/app';
import { createSession, NIL_UUID, Session } from '../support/session';
import {
  CHANNEL_ARRAY_KEYS,
  CONTACT_KEYS,
  CONTACTS,
  createContact,
  createList,
  EMAIL_KEYS,
  IMESSAGE_KEYS,
  keys,
  MEMBERSHIP_KEYS,
  LIST_KEYS,
  PUSH_KEYS,
  ruleOf,
  SMS_KEYS,
  sorted,
  TAG_KEYS,
  TELEGRAM_KEYS,
  WHATSAPP_KEYS,
} from './contacts-support';

describe('Contacts (CRUD, channels, tags)', () => {
  let app: INestApplication;
  let s: Session;
  let ds: DataSource;

  beforeAll(async () => {
    app = await createTestApp();
    s = await createSession(app);
    ds = app.get(DataSource);
  });
  afterAll(() => app.close());

  describe('POST /contacts', () => {
    it('creates a contact with every channel, tags and a list, answering the full field set', async () => {
      const list = await createList(s, { name: 'Newsletter' });
      const res = await s.http
        .post(CONTACTS, {
          firstName: ' Grace ',
          lastName: 'Hopper',
          timezone: 'America/New_York',
          language: 'en-US',
          customFields: { plan: 'gold', seats: 3 },
          notes: 'met at a conference',
          lastActivityAt: '2025-01-02T03:04:05.000Z',
          tags: ['Customer', 'customer', 'Beta'],
          emails: [{ email: 'grace@navy.example' }, { email: 'g.hopper@example.org' }],
          smsNumbers: [{ phoneNumber: '+1 (415) 555-0101' }],
          whatsappAccounts: [{ phoneNumber: '+447700900123', isBusinessAccount: true }],
          telegramAccounts: [{ phoneNumber: '+4915123456789', username: 'amazing_grace' }],
          imessageAccounts: [{ appleId: 'grace@icloud.example', phoneNumber: '+14155550102' }],
          pushNotifications: [
            {
              deviceToken: 'tok-ios-1',
              platform: 'ios',
              appVersion: '1.2.3',
              deviceInfo: { model: 'x' },
            },
          ],
          listIds: [list.id],
        })
        .expect(201);
      expect(res.body.success).toBe(true);
      expect(res.body.message).toBe('Contact created successfully');
      const c = res.body.data;
      expect(keys(c)).toEqual(
        sorted([...CONTACT_KEYS, ...CHANNEL_ARRAY_KEYS, 'tagRecords', 'listMemberships']),
      );
      expect(c).toMatchObject({
        organizationId: s.org.id,
        firstName: 'Grace',
        lastName: 'Hopper',
        displayName: 'Grace Hopper',
        timezone: 'America/New_York',
        language: 'en-US',
        status: 'active',
        customFields: { plan: 'gold', seats: 3 },
        notes: 'met at a conference',
        lastActivityAt: '2025-01-02T03:04:05.000Z',
        tags: ['Beta', 'Customer'],
      });
      expect(c.emails.map((e: { email: string }) => e.email)).toEqual([
        'grace@navy.example',
        'g.hopper@example.org',
      ]);
      expect(keys(c.emails[0])).toEqual(sorted(EMAIL_KEYS));
      // The first record of a channel is primary, later ones are not (unless asked).
      expect(c.emails.map((e: { isPrimary: boolean }) => e.isPrimary)).toEqual([true, false]);
      expect(c.emails[0]).toMatchObject({
        contactId: c.id,
        organizationId: s.org.id,
        status: 'unverified',
        bounceCount: 0,
        complaintCount: 0,
        verifiedAt: null,
        lastBouncedAt: null,
        lastComplainedAt: null,
      });
      expect(keys(c.smsNumbers[0])).toEqual(sorted(SMS_KEYS));
      expect(c.smsNumbers[0]).toMatchObject({
        phoneNumber: '+14155550101',
        countryCode: 'US',
        status: 'unverified',
        isPrimary: true,
        verifiedAt: null,
        optedOutAt: null,
      });
      expect(keys(c.whatsappAccounts[0])).toEqual(sorted(WHATSAPP_KEYS));
      expect(c.whatsappAccounts[0]).toMatchObject({
        phoneNumber: '+447700900123',
        countryCode: 'GB',
        status: 'unverified',
        isBusinessAccount: true,
        lastSeenAt: null,
      });
      expect(keys(c.telegramAccounts[0])).toEqual(sorted(TELEGRAM_KEYS));
      expect(c.telegramAccounts[0]).toMatchObject({
        phoneNumber: '+4915123456789',
        countryCode: 'DE',
        username: 'amazing_grace',
        status: 'active',
        lastActiveAt: null,
      });
      expect(keys(c.imessageAccounts[0])).toEqual(sorted(IMESSAGE_KEYS));
      expect(c.imessageAccounts[0]).toMatchObject({
        appleId: 'grace@icloud.example',
        phoneNumber: '+14155550102',
        status: 'unverified',
      });
      expect(keys(c.pushNotifications[0])).toEqual(sorted(PUSH_KEYS));
      expect(c.pushNotifications[0]).toMatchObject({
        deviceToken: 'tok-ios-1',
        platform: 'ios',
        status: 'active',
        appVersion: '1.2.3',
        deviceInfo: { model: 'x' },
        lastUsedAt: null,
        expiresAt: null,
      });
      expect(c.tagRecords).toHaveLength(2);
      for (const t of c.tagRecords) {
        expect(keys(t)).toEqual(sorted(TAG_KEYS));
        expect(t.contactCount).toBe(0);
      }
      expect(c.listMemberships).toHaveLength(1);
      const m = c.listMemberships[0];
      expect(keys(m)).toEqual(sorted([...MEMBERSHIP_KEYS, 'contactList']));
      expect(m).toMatchObject({ contactId: c.id, contactListId: list.id, status: 'subscribed' });
      expect(keys(m.contactList)).toEqual(sorted(LIST_KEYS));
      expect(m.contactList.subscriberCount).toBe(1);
    });

    it('keeps nullable keys present as null on a bare contact', async () => {
      const c = await createContact(s, {});
      expect(c).toMatchObject({
        firstName: null,
        lastName: null,
        displayName: 'Unnamed Contact',
        timezone: null,
        language: null,
        customFields: null,
        notes: null,
        lastActivityAt: null,
        tags: [],
        emails: [],
        smsNumbers: [],
        tagRecords: [],
        listMemberships: [],
      });
    });

    it.each([
      [{ firstName: 'Ada' }, 'Ada'],
      [{ lastName: ' Lovelace ' }, 'Lovelace'],
      [
        { firstName: '  ', lastName: '', emails: [{ email: 'only@mail.example' }] },
        'only@mail.example',
      ],
      [
        { emails: [{ email: 'first@mail.example' }, { email: 'second@mail.example' }] },
        'first@mail.example',
      ],
      [{}, 'Unnamed Contact'],
      [{ firstName: 'Ada', displayName: 'The Countess' }, 'The Countess'],
    ])('derives displayName from %j as %s', async (body, expected) => {
      const c = await createContact(s, body);
      expect(c.displayName).toBe(expected);
    });

    it('gives contacts and their records time-ordered ids (UUID version 7): the creation time, then 74 random bits', async () => {
      const msOf = (id: string) => parseInt(id.replace(/-/g, '').slice(0, 12), 16);
      const before = Date.now();
      const first = await createContact(s, {
        emails: [{ email: 'ordered.one@example.com' }],
        smsNumbers: [{ phoneNumber: '+14155550171' }],
      });
      const second = await createContact(s, { emails: [{ email: 'ordered.two@example.com' }] });
      const after = Date.now();
      const records: { id: string }[] = await ds.query(
        `SELECT id FROM contact_emails WHERE contact_id = $1
         UNION ALL SELECT id FROM contact_sms WHERE contact_id = $1`,
        [first.id],
      );
      expect(records).toHaveLength(2);
      const ids = [first.id, second.id, ...records.map((r) => r.id)];
      for (const id of ids) {
        expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
        // The server's clock may differ from ours by a little; the ids are from this test.
        expect(msOf(id)).toBeGreaterThanOrEqual(before - 1000);
        expect(msOf(id)).toBeLessThanOrEqual(after + 1000);
      }
      expect(msOf(second.id)).toBeGreaterThanOrEqual(msOf(first.id));
    });

    it("looks duplicates up hash by hash, never reading the organization's other email records, whatever the statistics say", async () => {
      // 20,000 email records the statistics know nothing of (in a transaction ANALYZE cannot
      // see), as when an import is writing a new organization's contacts.
      const orgId = asOrgId(s.org.id);
      const absent = Array.from({ length: 500 }, (_, i) => `absent-${i}`.padEnd(64, '0'));
      const runner = ds.createQueryRunner();
      await runner.startTransaction();
      try {
        const em = runner.manager;
        const [{ hash: stored }] = await em.query(
          `WITH c AS (
             INSERT INTO contacts (organization_id, status)
             SELECT $1::uuid, 'active' FROM generate_series(1, 20000) RETURNING id),
           e AS (
             INSERT INTO contact_emails (organization_id, contact_id, email, email_hash)
             SELECT $1::uuid, id, 'v1:00000000:x', md5(id::text) || md5(id::text) FROM c
             RETURNING email_hash)
           SELECT min(email_hash) AS hash FROM e`,
          [orgId],
        );
        const returned = async (): Promise<number> => {
          const [{ n }] = await em.query(
            `SELECT pg_stat_get_xact_tuples_returned(
               'contact_emails_organization_id_email_hash_key'::regclass) AS n`,
          );
          return Number(n);
        };
        const before = await returned();
        const found = await app
          .get(ContactsRepository)
          .idsByEmailHash(orgId, [...absent, stored], 'FOR KEY SHARE', em);
        expect([...found.keys()]).toEqual([stored]);
        // Each probe returns the entry it finds: one, not the organization's 20,000.
        expect((await returned()) - before).toBe(1);
      } finally {
        await runner.rollbackTransaction();
        await runner.release();
      }
    });

    it('refuses an email already used in the organization with 409, whatever its case', async () => {
      await createContact(s, { emails: [{ email: 'Dup@Example.com' }] });
      const res = await s.http
        .post(CONTACTS, { firstName: 'Other', emails: [{ email: ' dup@example.COM ' }] })
        .expect(409);
      expect(res.body).toMatchObject({ success: false, code: 'E_BUSINESS_RULE_VIOLATION' });
      // Nothing of the refused contact was written.
      const [{ n }] = await ds.query(
        `SELECT count(*)::int AS n FROM contacts WHERE organization_id = $1 AND first_name = 'Other'`,
        [s.org.id],
      );
      expect(n).toBe(0);
      // The same address in another organization is fine.
      const other = await createSession(app);
      await createContact(other, { emails: [{ email: 'dup@example.com' }] });
    });

    it('refuses the same email twice in one body with 409', async () => {
      await s.http
        .post(CONTACTS, {
          emails: [{ email: 'twice@example.com' }, { email: 'TWICE@example.com' }],
        })
        .expect(409);
    });

    it('validates the body: unknown field, bad email, bad status, bad phone, unknown list', async () => {
      let res = await s.http.post(CONTACTS, { nickname: 'x' }).expect(422);
      expect(ruleOf(res.body, 'nickname')).toBe('unknown');
      res = await s.http.post(CONTACTS, { emails: [{ email: 'not-an-email' }] }).expect(422);
      expect(ruleOf(res.body, 'emails.0.email')).toBe('email');
      res = await s.http.post(CONTACTS, { status: 'deleted' }).expect(422);
      expect(ruleOf(res.body, 'status')).toBe('enum');
      res = await s.http
        .post(CONTACTS, { emails: [{ email: 'a@b.example', status: 'opted_out' }] })
        .expect(422);
      expect(ruleOf(res.body, 'emails.0.status')).toBe('enum');
      res = await s.http
        .post(CONTACTS, { smsNumbers: [{ phoneNumber: 'call me maybe' }] })
        .expect(422);
      expect(ruleOf(res.body, 'smsNumbers.0.phoneNumber')).toBe('type');
      res = await s.http.post(CONTACTS, { timezone: 'Mars/Olympus' }).expect(422);
      expect(ruleOf(res.body, 'timezone')).toBe('type');
      await s.http.post(CONTACTS, { listIds: [NIL_UUID] }).expect(404);
    });
  });

  describe('GET / PATCH / DELETE /contacts/{id}', () => {
    it('reads a contact with every optional array', async () => {
      const c = await createContact(s, {
        firstName: 'Read',
        emails: [{ email: 'read@example.com' }],
      });
      const res = await s.http.get(`${CONTACTS}/${c.id}`).expect(200);
      expect(res.body.message).toBe('Contact fetched successfully');
      expect(keys(res.body.data)).toEqual(
        sorted([...CONTACT_KEYS, ...CHANNEL_ARRAY_KEYS, 'tagRecords', 'listMemberships']),
      );
      expect(res.body.data.emails[0].email).toBe('read@example.com');
    });

    it('404s an unknown id and 422s a malformed one', async () => {
      const res = await s.http.get(`${CONTACTS}/${NIL_UUID}`).expect(404);
      expect(res.body).toMatchObject({ success: false, code: 'E_ROW_NOT_FOUND' });
      const bad = await s.http.get(`${CONTACTS}/not-a-uuid`).expect(422);
      expect(ruleOf(bad.body, 'id')).toBe('uuid');
    });

    it('patches fields, keeps displayName unless given, and accepts null', async () => {
      const c = await createContact(s, { firstName: 'Old', lastName: 'Name', notes: 'n' });
      const res = await s.http
        .patch(`${CONTACTS}/${c.id}`, { firstName: 'New', notes: null, status: 'archived' })
        .expect(200);
      expect(res.body.data).toMatchObject({
        firstName: 'New',
        lastName: 'Name',
        displayName: 'Old Name',
        notes: null,
        status: 'archived',
      });
      const again = await s.http
        .patch(`${CONTACTS}/${c.id}`, { displayName: 'Renamed' })
        .expect(200);
      expect(again.body.data.displayName).toBe('Renamed');
      const bad = await s.http.patch(`${CONTACTS}/${c.id}`, { emails: [] }).expect(422);
      expect(ruleOf(bad.body, 'emails')).toBe('unknown');
      await s.http.patch(`${CONTACTS}/${NIL_UUID}`, { firstName: 'x' }).expect(404);
    });

    it('deletes the contact with its channel records, tags and memberships', async () => {
      const list = await createList(s, { name: 'To shrink' });
      const c = await createContact(s, {
        emails: [{ email: 'gone@example.com' }],
        smsNumbers: [{ phoneNumber: '+14155550177' }],
        tags: ['ephemeral'],
        listIds: [list.id],
      });
      const res = await s.http.delete(`${CONTACTS}/${c.id}`).expect(200);
      expect(res.body).toEqual({
        success: true,
        message: 'Contact deleted successfully',
        data: null,
      });
      await s.http.get(`${CONTACTS}/${c.id}`).expect(404);
      for (const table of ['contact_emails', 'contact_sms', 'contact_list_memberships']) {
        const [{ n }] = await ds.query(
          `SELECT count(*)::int AS n FROM ${table} WHERE contact_id = $1`,
          [c.id],
        );
        expect(n).toBe(0);
      }
      const l = await s.http.get(`/api/v1/user/contact-lists/${list.id}`).expect(200);
      expect(l.body.data.subscriberCount).toBe(0);
      const tags = (await s.http.get('/api/v1/user/contact-tags?limit=100').expect(200)).body.data;
      expect(tags.find((t: { name: string }) => t.name === 'ephemeral').contactCount).toBe(0);
      // The address is free again.
      await createContact(s, { emails: [{ email: 'gone@example.com' }] });
      await s.http.delete(`${CONTACTS}/${c.id}`).expect(404);
    });
  });

  describe('channel records', () => {
    let contactId: string;
    beforeAll(async () => {
      contactId = (await createContact(s, { firstName: 'Channels' })).id;
    });

    const cases: {
      path: string;
      create: Record<string, unknown>;
      keys: string[];
      patch: Record<string, unknown>;
      immutable: Record<string, unknown>;
      badStatus: string;
      goodStatus: string;
    }[] = [
      {
        path: 'emails',
        create: { email: 'chan@example.com', status: 'verified' },
        keys: EMAIL_KEYS,
        patch: { status: 'suppressed' },
        immutable: { email: 'other@example.com' },
        badStatus: 'blocked',
        goodStatus: 'complained',
      },
      {
        path: 'sms',
        create: { phoneNumber: '+33612345678' },
        keys: SMS_KEYS,
        patch: { status: 'opted_out' },
        immutable: { phoneNumber: '+33612345679' },
        badStatus: 'blocked',
        goodStatus: 'invalid',
      },
      {
        path: 'whatsapp',
        create: { phoneNumber: '+5511912345678', countryCode: 'br' },
        keys: WHATSAPP_KEYS,
        patch: {
          status: 'blocked',
          isBusinessAccount: true,
          lastSeenAt: '2025-05-05T05:05:05.000Z',
        },
        immutable: { phoneNumber: '+5511912345679' },
        badStatus: 'opted_out',
        goodStatus: 'verified',
      },
      {
        path: 'telegram',
        create: { phoneNumber: '+380501234567', username: 'handle' },
        keys: TELEGRAM_KEYS,
        patch: { status: 'blocked', lastActiveAt: '2025-05-05T05:05:05.000Z' },
        immutable: { username: 'other_handle' },
        badStatus: 'verified',
        goodStatus: 'inactive',
      },
      {
        path: 'imessage',
        create: { appleId: 'chan@icloud.example' },
        keys: IMESSAGE_KEYS,
        patch: { status: 'invalid' },
        immutable: { appleId: 'other@icloud.example' },
        badStatus: 'blocked',
        goodStatus: 'verified',
      },
      {
        path: 'push',
        create: { deviceToken: 'device-token-abc', platform: 'android' },
        keys: PUSH_KEYS,
        patch: { status: 'expired', appVersion: '2.0.0', expiresAt: '2026-01-01T00:00:00.000Z' },
        immutable: { deviceToken: 'device-token-def' },
        badStatus: 'verified',
        goodStatus: 'inactive',
      },
    ];

    it.each(cases)('POST, PATCH and DELETE /contacts/{id}/$path', async (c) => {
      const base = `${CONTACTS}/${contactId}/${c.path}`;
      const created = await s.http.post(base, c.create).expect(201);
      const rec = created.body.data;
      expect(keys(rec)).toEqual(sorted(c.keys));
      expect(rec.contactId).toBe(contactId);
      expect(rec.isPrimary).toBe(true);

      const patched = await s.http.patch(`${base}/${rec.id}`, c.patch).expect(200);
      expect(keys(patched.body.data)).toEqual(sorted(c.keys));
      expect(patched.body.data).toMatchObject(c.patch);

      // The encrypted value cannot change: the field is unknown to PATCH.
      const imm = await s.http.patch(`${base}/${rec.id}`, c.immutable).expect(422);
      expect(ruleOf(imm.body, Object.keys(c.immutable)[0])).toBe('unknown');
      // Status values are checked against the channel's own list.
      const bad = await s.http.patch(`${base}/${rec.id}`, { status: c.badStatus }).expect(422);
      expect(ruleOf(bad.body, 'status')).toBe('enum');
      await s.http.post(base, { ...c.create, status: c.badStatus }).expect(422);
      await s.http.patch(`${base}/${rec.id}`, { status: c.goodStatus }).expect(200);

      await s.http.patch(`${base}/${NIL_UUID}`, { isPrimary: true }).expect(404);
      const del = await s.http.delete(`${base}/${rec.id}`).expect(200);
      expect(del.body.data).toBeNull();
      await s.http.delete(`${base}/${rec.id}`).expect(404);
    });

    it('stamps verifiedAt and optedOutAt when a record enters those states', async () => {
      const base = `${CONTACTS}/${contactId}/sms`;
      const rec = (await s.http.post(base, { phoneNumber: '+61412345678' }).expect(201)).body.data;
      expect(rec.countryCode).toBe('AU');
      const v = await s.http.patch(`${base}/${rec.id}`, { status: 'verified' }).expect(200);
      expect(typeof v.body.data.verifiedAt).toBe('string');
      const o = await s.http.patch(`${base}/${rec.id}`, { status: 'opted_out' }).expect(200);
      expect(typeof o.body.data.optedOutAt).toBe('string');
    });

    it('setting isPrimary never demotes the other records of the channel', async () => {
      const id = (await createContact(s, {})).id;
      const base = `${CONTACTS}/${id}/emails`;
      const a = (await s.http.post(base, { email: 'prim-a@example.com' }).expect(201)).body.data;
      const b = (await s.http.post(base, { email: 'prim-b@example.com' }).expect(201)).body.data;
      expect([a.isPrimary, b.isPrimary]).toEqual([true, false]);
      await s.http.patch(`${base}/${b.id}`, { isPrimary: true }).expect(200);
      const c = (
        await s.http.post(base, { email: 'prim-c@example.com', isPrimary: true }).expect(201)
      ).body.data;
      expect(c.isPrimary).toBe(true);
      const all = (await s.http.get(`${CONTACTS}/${id}`).expect(200)).body.data.emails;
      expect(all.map((e: { isPrimary: boolean }) => e.isPrimary)).toEqual([true, true, true]);
    });

    it('refuses a second contact with an email of the organization (409), also on POST /emails', async () => {
      const id = (await createContact(s, {})).id;
      await s.http.post(`${CONTACTS}/${id}/emails`, { email: 'chan-dup@example.com' }).expect(201);
      const other = (await createContact(s, {})).id;
      const res = await s.http
        .post(`${CONTACTS}/${other}/emails`, { email: 'CHAN-DUP@example.com' })
        .expect(409);
      expect(res.body.code).toBe('E_BUSINESS_RULE_VIOLATION');
    });

    it('needs countryCode when the calling code names no country, and derives it otherwise', async () => {
      const base = `${CONTACTS}/${contactId}/whatsapp`;
      // +882 is the international networks code: a possible number that belongs to no country.
      const res = await s.http.post(base, { phoneNumber: '+882163456789' }).expect(422);
      expect(ruleOf(res.body, 'countryCode')).toBe('required');
      const ok = await s.http.post(base, { phoneNumber: '+882163456789', countryCode: 'xk' });
      // XK is not ISO 3166-1 assigned; a real code is accepted and upper-cased.
      expect(ok.status).toBe(422);
      const good = await s.http
        .post(base, { phoneNumber: '+882163456789', countryCode: 'fr' })
        .expect(201);
      expect(good.body.data.countryCode).toBe('FR');
      // An unassigned calling code is no phone number at all.
      const bad = await s.http.post(base, { phoneNumber: '+99912345678' }).expect(422);
      expect(ruleOf(bad.body, 'phoneNumber')).toBe('type');
    });

    it('404s every channel route for an unknown contact', async () => {
      for (const path of ['emails', 'sms', 'whatsapp', 'telegram', 'imessage', 'push']) {
        await s.http.post(`${CONTACTS}/${NIL_UUID}/${path}`, {}).expect(422);
        await s.http.patch(`${CONTACTS}/${NIL_UUID}/${path}/${NIL_UUID}`, {}).expect(404);
        await s.http.delete(`${CONTACTS}/${NIL_UUID}/${path}/${NIL_UUID}`).expect(404);
      }
      await s.http.post(`${CONTACTS}/${NIL_UUID}/emails`, { email: 'x@example.com' }).expect(404);
    });
  });

  describe('POST /contacts/{id}/tags and DELETE /contacts/{id}/tags/{tagId}', () => {
    it('adds tags by name (creating missing ones, matching case-insensitively) and removes one', async () => {
      const existing = (
        await s.http.post('/api/v1/user/contact-tags', { name: 'Gold' }).expect(201)
      ).body.data;
      const c = await createContact(s, { firstName: 'Tagged' });
      const res = await s.http
        .post(`${CONTACTS}/${c.id}/tags`, { names: ['gold', 'Silver', 'silver '] })
        .expect(200);
      expect(res.body.data.tags).toEqual(['Gold', 'Silver']);
      expect(res.body.data.tagRecords.map((t: { id: string }) => t.id)).toContain(existing.id);
      for (const t of res.body.data.tagRecords) expect(t.contactCount).toBe(0);
      // Idempotent.
      await s.http.post(`${CONTACTS}/${c.id}/tags`, { names: ['GOLD'] }).expect(200);
      const gold = (await s.http.get(`/api/v1/user/contact-tags/${existing.id}`).expect(200)).body
        .data;
      expect(gold.contactCount).toBe(1);

      const removed = await s.http.delete(`${CONTACTS}/${c.id}/tags/${existing.id}`).expect(200);
      expect(removed.body.data.tags).toEqual(['Silver']);
      await s.http.delete(`${CONTACTS}/${c.id}/tags/${NIL_UUID}`).expect(404);
      await s.http.post(`${CONTACTS}/${NIL_UUID}/tags`, { names: ['x'] }).expect(404);
      const bad = await s.http.post(`${CONTACTS}/${c.id}/tags`, { names: [''] }).expect(422);
      expect(bad.body.errors[0].field).toBe('names');
    });
  });
});
