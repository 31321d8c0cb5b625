// Tags (§5): paginated listing with the real contactCount, the unpaginated id+name listing,
// create / rename / delete, names unique per organization case-insensitively.
import { INestApplication } from '@nestjs/common';
import { createTestApp } from '../support/app';
import { createSession, NIL_UUID, Session } from '../support/session';
import {
  CONTACTS,
  createContact,
  createList,
  keys,
  rulesOf,
  sorted,
  TAG_KEYS,
  TAGS,
} from './contacts-support';

describe('Contact tags', () => {
  let app: INestApplication;
  let s: Session;

  beforeAll(async () => {
    app = await createTestApp();
    s = await createSession(app);
  });
  afterAll(() => app.close());

  it('lists tags by name with their real contactCount, paginated', async () => {
    const a = await createContact(s, { tags: ['Alpha', 'beta'] });
    await createContact(s, { tags: ['alpha'] });
    await createContact(s, { tags: ['Gamma', 'ALPHA'] });
    const res = await s.http.get(`${TAGS}?limit=2`).expect(200);
    expect(res.body.message).toBe('Tags fetched successfully');
    expect(res.body.data.map((t: { name: string }) => t.name)).toEqual(['Alpha', 'beta']);
    for (const t of res.body.data) expect(keys(t)).toEqual(sorted(TAG_KEYS));
    expect(res.body.data.map((t: { contactCount: number }) => t.contactCount)).toEqual([3, 1]);
    expect(res.body.meta).toMatchObject({
      total: 3,
      perPage: 2,
      currentPage: 1,
      lastPage: 2,
      nextPageUrl: '/api/v1/user/contact-tags?limit=2&page=2',
      previousPageUrl: null,
    });
    const p2 = await s.http.get(`${TAGS}?limit=2&page=2`).expect(200);
    expect(
      p2.body.data.map((t: { name: string; contactCount: number }) => [t.name, t.contactCount]),
    ).toEqual([['Gamma', 1]]);
    // Counts follow removals and contact deletion.
    await s.http.delete(`${CONTACTS}/${a.id}`).expect(200);
    const after = await s.http.get(TAGS).expect(200);
    expect(
      after.body.data.map((t: { name: string; contactCount: number }) => [t.name, t.contactCount]),
    ).toEqual([
      ['Alpha', 2],
      ['beta', 0],
      ['Gamma', 1],
    ]);
    await s.http.get(`${TAGS}?limit=0`).expect(422);
    await s.http.get(`${TAGS}?limit=101`).expect(422);
  });

  it('GET /contact-tags/all answers id and name only, contactCount 0, unpaginated', async () => {
    const res = await s.http.get(`${TAGS}/all`).expect(200);
    expect(res.body.meta).toBeUndefined();
    expect(res.body.data.length).toBeGreaterThanOrEqual(3);
    for (const t of res.body.data) {
      expect(keys(t)).toEqual(['contactCount', 'id', 'name']);
      expect(t.contactCount).toBe(0);
    }
    expect(res.body.data.map((t: { name: string }) => t.name)).toEqual(
      [...res.body.data.map((t: { name: string }) => t.name)].sort((x: string, y: string) =>
        x.toLowerCase() < y.toLowerCase() ? -1 : 1,
      ),
    );
  });

  it('creates, reads, renames and deletes a tag; names are unique case-insensitively', async () => {
    const created = await s.http.post(TAGS, { name: ' Partners ' }).expect(201);
    const tag = created.body.data;
    expect(keys(tag)).toEqual(sorted(TAG_KEYS));
    expect(tag).toMatchObject({ name: 'Partners', contactCount: 0, organizationId: s.org.id });
    const dup = await s.http.post(TAGS, { name: 'PARTNERS' }).expect(409);
    expect(dup.body.code).toBe('E_BUSINESS_RULE_VIOLATION');
    // Another organization may use the name.
    const other = await createSession(app);
    await other.http.post(TAGS, { name: 'partners' }).expect(201);

    const c = await createContact(s, { tags: ['partners'] });
    expect(c.tags).toEqual(['Partners']);
    const got = await s.http.get(`${TAGS}/${tag.id}`).expect(200);
    expect(got.body.data.contactCount).toBe(1);

    const renamed = await s.http.patch(`${TAGS}/${tag.id}`, { name: 'Allies' }).expect(200);
    expect(renamed.body.data).toMatchObject({ id: tag.id, name: 'Allies', contactCount: 1 });
    // Renaming to its own name in another case is fine; to another tag's name is a 409.
    await s.http.patch(`${TAGS}/${tag.id}`, { name: 'ALLIES' }).expect(200);
    await s.http.patch(`${TAGS}/${tag.id}`, { name: 'gamma' }).expect(409);
    const contact = await s.http.get(`${CONTACTS}/${c.id}`).expect(200);
    expect(contact.body.data.tags).toEqual(['ALLIES']);

    const bad = await s.http.post(TAGS, { name: '' }).expect(422);
    expect(rulesOf(bad.body, 'name')).toContain('minLength');
    await s.http.post(TAGS, { name: 'x', color: 'red' }).expect(422);

    await s.http.delete(`${TAGS}/${tag.id}`).expect(200);
    await s.http.get(`${TAGS}/${tag.id}`).expect(404);
    await s.http.delete(`${TAGS}/${tag.id}`).expect(404);
    await s.http.patch(`${TAGS}/${NIL_UUID}`, { name: 'x' }).expect(404);
    const after = await s.http.get(`${CONTACTS}/${c.id}`).expect(200);
    expect(after.body.data.tags).toEqual([]);
  });

  it('reports contactCount 0 for tags embedded in a contact or a list', async () => {
    const c = await createContact(s, { tags: ['Embedded'] });
    const got = await s.http.get(`${CONTACTS}/${c.id}`).expect(200);
    expect(got.body.data.tagRecords).toHaveLength(1);
    expect(got.body.data.tagRecords[0]).toMatchObject({ name: 'Embedded', contactCount: 0 });
    const list = await createList(s, { name: 'Tagged list', tags: ['Embedded', 'listonly'] });
    expect(list.tags).toEqual(['Embedded', 'listonly']);
    const all = await s.http.get(`${TAGS}/all`).expect(200);
    expect(all.body.data.find((t: { name: string }) => t.name === 'Embedded').contactCount).toBe(0);
  });
});
