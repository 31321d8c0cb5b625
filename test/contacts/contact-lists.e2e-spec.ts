// Contact lists and memberships (§5): CRUD, the default list (409 on delete), cuid,
// preferredChannels, members with their contact, subscribe / unsubscribe / remove, and
// subscriberCount exact under 50 concurrent membership changes.
import { INestApplication } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { createTestApp } from '../support/app';
import { createSession, NIL_UUID, Session } from '../support/session';
import {
  CONTACTS,
  createContact,
  createList,
  EMAIL_KEYS,
  keys,
  LIST_KEYS,
  LISTS,
  MEMBERSHIP_KEYS,
  rulesOf,
  sorted,
  SUMMARY_KEYS,
} from './contacts-support';

describe('Contact lists', () => {
  let app: INestApplication;
  let s: Session;
  let ds: DataSource;

  beforeAll(async () => {
    app = await createTestApp();
    s = await createSession(app);
    ds = app.get(DataSource);
  });
  afterAll(() => app.close());

  const subscribed = async (listId: string) => {
    const [{ n }] = await ds.query(
      `SELECT count(*)::int AS n FROM contact_list_memberships WHERE contact_list_id = $1 AND status = 'subscribed'`,
      [listId],
    );
    return n as number;
  };
  const countOf = async (listId: string) =>
    (await s.http.get(`${LISTS}/${listId}`).expect(200)).body.data.subscriberCount as number;

  it('every organization has exactly one default list, which cannot be deleted', async () => {
    const res = await s.http.get(LISTS).expect(200);
    expect(res.body.message).toBe('Contact lists fetched successfully');
    const defaults = res.body.data.filter((l: { isDefault: boolean }) => l.isDefault);
    expect(defaults).toHaveLength(1);
    expect(keys(defaults[0])).toEqual(sorted(LIST_KEYS));
    const del = await s.http.delete(`${LISTS}/${defaults[0].id}`).expect(409);
    expect(del.body).toMatchObject({ success: false, code: 'E_BUSINESS_RULE_VIOLATION' });
    await s.http.get(`${LISTS}/${defaults[0].id}`).expect(200);
  });

  it('creates a list with a cuid, preferredChannels and tags; reads, updates, deletes it', async () => {
    const created = await s.http
      .post(LISTS, {
        name: 'Launch',
        description: 'Launch announcements',
        preferredChannels: ['sms', 'email', 'sms'],
        tags: ['launch'],
      })
      .expect(201);
    const l = created.body.data;
    expect(keys(l)).toEqual(sorted(LIST_KEYS));
    expect(l).toMatchObject({
      organizationId: s.org.id,
      name: 'Launch',
      description: 'Launch announcements',
      status: 'active',
      preferredChannels: ['sms', 'email'],
      tags: ['launch'],
      isDefault: false,
      subscriberCount: 0,
    });
    expect(l.cuid).toMatch(/^[a-z][a-z0-9]{23}$/);
    const other = await createList(s, { name: 'Other' });
    expect(other.cuid).not.toBe(l.cuid);
    expect(other.preferredChannels).toEqual(['email']);
    expect(other.description).toBeNull();

    const got = await s.http.get(`${LISTS}/${l.id}`).expect(200);
    expect(got.body.data).toEqual(l);
    const patched = await s.http
      .patch(`${LISTS}/${l.id}`, {
        name: 'Launch 2',
        description: null,
        status: 'archived',
        preferredChannels: ['push'],
        tags: [],
      })
      .expect(200);
    expect(patched.body.data).toMatchObject({
      id: l.id,
      cuid: l.cuid,
      name: 'Launch 2',
      description: null,
      status: 'archived',
      preferredChannels: ['push'],
      tags: [],
    });
    let bad = await s.http.patch(`${LISTS}/${l.id}`, { preferredChannels: ['fax'] }).expect(422);
    expect(rulesOf(bad.body, 'preferredChannels')).toContain('enum');
    bad = await s.http.patch(`${LISTS}/${l.id}`, { name: null }).expect(422);
    expect(bad.body.errors[0].field).toBe('name');
    bad = await s.http.patch(`${LISTS}/${l.id}`, { isDefault: true }).expect(422);
    expect(rulesOf(bad.body, 'isDefault')).toContain('unknown');
    bad = await s.http.post(LISTS, { description: 'no name' }).expect(422);
    expect(rulesOf(bad.body, 'name')).toContain('required');
    await s.http.post(LISTS, { name: 'x', status: 'deleted' }).expect(422);

    const page = await s.http.get(`${LISTS}?limit=2`).expect(200);
    expect(page.body.data.map((x: { id: string }) => x.id)).toEqual([other.id, l.id]);
    expect(page.body.meta).toMatchObject({ total: 3, perPage: 2, lastPage: 2 });

    await s.http.delete(`${LISTS}/${l.id}`).expect(200);
    await s.http.get(`${LISTS}/${l.id}`).expect(404);
    await s.http.delete(`${LISTS}/${l.id}`).expect(404);
    await s.http.patch(`${LISTS}/${NIL_UUID}`, { name: 'x' }).expect(404);
  });

  it('subscribes (idempotently), lists members with their contact, unsubscribes and removes', async () => {
    const list = await createList(s, { name: 'Members' });
    const a = await createContact(s, {
      firstName: 'Ann',
      emails: [{ email: 'ann@members.example' }],
      tags: ['m'],
    });
    const b = await createContact(s, { firstName: 'Ben' });
    await s.http.post(`${LISTS}/${list.id}/members`, { contactIds: [a.id] }).expect(200);
    const sub = await s.http
      .post(`${LISTS}/${list.id}/members`, { contactIds: [a.id, b.id, a.id] })
      .expect(200);
    expect(sub.body.data).toHaveLength(2);
    for (const m of sub.body.data) {
      expect(keys(m)).toEqual(sorted(MEMBERSHIP_KEYS));
      expect(m).toMatchObject({
        contactListId: list.id,
        status: 'subscribed',
        unsubscribedAt: null,
        unsubscribeReason: null,
      });
    }
    expect(await countOf(list.id)).toBe(2);
    await s.http.post(`${LISTS}/${list.id}/members`, { contactIds: [a.id] }).expect(200);
    expect(await countOf(list.id)).toBe(2);

    const members = await s.http.get(`${LISTS}/${list.id}/members`).expect(200);
    expect(members.body.message).toBe('List members fetched successfully');
    expect(members.body.meta).toMatchObject({ total: 2, currentPage: 1, lastPage: 1 });
    // Newest first.
    expect(members.body.data.map((m: { contactId: string }) => m.contactId)).toEqual([b.id, a.id]);
    const ann = members.body.data[1];
    expect(keys(ann)).toEqual(sorted([...MEMBERSHIP_KEYS, 'contact']));
    expect(keys(ann.contact)).toEqual(sorted([...SUMMARY_KEYS, 'emails']));
    expect(ann.contact).toMatchObject({
      id: a.id,
      firstName: 'Ann',
      displayName: 'Ann',
      tags: ['m'],
    });
    expect(keys(ann.contact.emails[0])).toEqual(sorted(EMAIL_KEYS));
    expect(ann.contact.emails[0].email).toBe('ann@members.example');

    const asked = Date.now();
    const unsub = await s.http
      .post(`${LISTS}/${list.id}/members/${a.id}/unsubscribe`, { reason: 'too many emails' })
      .expect(200);
    const answered = Date.now();
    expect(unsub.body.data).toMatchObject({
      contactId: a.id,
      status: 'unsubscribed',
      unsubscribeReason: 'too many emails',
    });
    // Stamped while the request ran.
    const unsubscribedAt = Date.parse(unsub.body.data.unsubscribedAt);
    expect(unsubscribedAt).toBeGreaterThanOrEqual(asked);
    expect(unsubscribedAt).toBeLessThanOrEqual(answered);
    expect(await countOf(list.id)).toBe(1);
    // Unsubscribing again changes nothing.
    const again = await s.http
      .post(`${LISTS}/${list.id}/members/${a.id}/unsubscribe`, { reason: 'other' })
      .expect(200);
    expect(again.body.data.unsubscribeReason).toBe('too many emails');
    expect(await countOf(list.id)).toBe(1);

    const onlySubscribed = await s.http
      .get(`${LISTS}/${list.id}/members?status=subscribed`)
      .expect(200);
    expect(onlySubscribed.body.data.map((m: { contactId: string }) => m.contactId)).toEqual([b.id]);
    expect(onlySubscribed.body.meta.total).toBe(1);
    const onlyUnsub = await s.http
      .get(`${LISTS}/${list.id}/members?status=unsubscribed`)
      .expect(200);
    expect(onlyUnsub.body.meta.total).toBe(1);
    await s.http.get(`${LISTS}/${list.id}/members?status=gone`).expect(422);

    // Subscribing again re-subscribes and clears the unsubscribe fields.
    const resub = await s.http
      .post(`${LISTS}/${list.id}/members`, { contactIds: [a.id] })
      .expect(200);
    expect(resub.body.data[0]).toMatchObject({
      status: 'subscribed',
      unsubscribedAt: null,
      unsubscribeReason: null,
    });
    expect(await countOf(list.id)).toBe(2);

    await s.http.delete(`${LISTS}/${list.id}/members/${b.id}`).expect(200);
    expect(await countOf(list.id)).toBe(1);
    await s.http.delete(`${LISTS}/${list.id}/members/${b.id}`).expect(404);
    await s.http.post(`${LISTS}/${list.id}/members/${b.id}/unsubscribe`, {}).expect(404);
    await s.http.post(`${LISTS}/${list.id}/members`, { contactIds: [NIL_UUID] }).expect(404);
    await s.http.post(`${LISTS}/${list.id}/members`, { contactIds: [] }).expect(422);
    await s.http.post(`${LISTS}/${list.id}/members`, { contactIds: ['nope'] }).expect(422);
    expect(await countOf(list.id)).toBe(await subscribed(list.id));

    // Deleting a subscribed contact lowers the count.
    await s.http.delete(`${CONTACTS}/${a.id}`).expect(200);
    expect(await countOf(list.id)).toBe(0);
  });

  it('keeps subscriberCount equal to count(*) of subscribed memberships under 50 concurrent changes', async () => {
    const list = await createList(s, { name: 'Concurrency' });
    const contacts: string[] = [];
    for (let i = 0; i < 8; i++) contacts.push((await createContact(s, { firstName: `C${i}` })).id);
    // Deterministic pseudo-random mix of subscribes (of 1-3 contacts), unsubscribes and removals.
    let seed = 42;
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const requests = Array.from({ length: 50 }, (_, i) => {
      const c = contacts[rnd(contacts.length)];
      const kind = i % 5;
      if (kind < 2) {
        const ids = [c, contacts[rnd(contacts.length)], contacts[rnd(contacts.length)]];
        return s.http.post(`${LISTS}/${list.id}/members`, { contactIds: ids.slice(0, 1 + rnd(3)) });
      }
      if (kind < 4)
        return s.http.post(`${LISTS}/${list.id}/members/${c}/unsubscribe`, { reason: `r${i}` });
      return s.http.delete(`${LISTS}/${list.id}/members/${c}`);
    });
    const results = await Promise.all(requests.map((r) => r.then((res) => res.status)));
    // Only outcomes of the domain: done, or 404 for a membership that did not exist at that moment.
    for (const status of results) expect([200, 404]).toContain(status);
    expect(results.filter((x) => x === 200).length).toBeGreaterThan(20);
    const count = await countOf(list.id);
    expect(count).toBe(await subscribed(list.id));
    // And once more after a second wave on the same list.
    await Promise.all(
      contacts.map((c, i) =>
        i % 2
          ? s.http.post(`${LISTS}/${list.id}/members`, { contactIds: contacts })
          : s.http.post(`${LISTS}/${list.id}/members/${c}/unsubscribe`, {}),
      ),
    );
    expect(await countOf(list.id)).toBe(await subscribed(list.id));
  });
});
