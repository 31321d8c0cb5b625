// Segment CRUD, static membership, the contacts route and tenancy: a static segment keeps its
// members, a dynamic one follows changes at once, members on a dynamic segment → 409; another
// organization's segment is 404 on every route and its contacts never appear.
import { INestApplication } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { fieldCipher } from '@app/domain';
import { createTestApp } from '../support/app';
import { createSession, NIL_UUID, Session } from '../support/session';
import { seedContacts, SeedContact, Seeded } from './seed';

const SEGMENTS = '/api/v1/user/contact-segments';

const people = (prefix: string, n: number): SeedContact[] =>
  Array.from({ length: n }, (_, i) => ({
    key: `${prefix}${i + 1}`,
    firstName: `${prefix}${i + 1}`,
    status: 'active' as const,
    // Newest first is c25, c24, ...: the contacts route orders by createdAt descending.
    createdAt: new Date(Date.UTC(2025, 0, 1) + i * 3_600_000).toISOString(),
  }));

describe('Contact segments (§6)', () => {
  let app: INestApplication;
  let ds: DataSource;
  let s: Session;
  let other: Session;
  let seeded: Seeded;
  let otherSeeded: Seeded;

  beforeAll(async () => {
    app = await createTestApp();
    ds = app.get(DataSource);
    s = await createSession(app, { scopes: ['contacts:read', 'contacts:write'] });
    other = await createSession(app);
    seeded = await seedContacts(app, s.org.id, [
      ...people('c', 25),
      {
        key: 'target',
        firstName: 'Target',
        status: 'active',
        createdAt: '2024-06-01T00:00:00Z',
        tags: ['VIP', 'alpha'],
        emails: [
          { email: 'target@example.com', status: 'verified' },
          { email: 'target.alt@example.com', status: 'bounced' },
        ],
      },
    ]);
    // The other organization has a look-alike of "target" that matches the same rules.
    otherSeeded = await seedContacts(app, other.org.id, [
      {
        key: 'target',
        firstName: 'Target',
        status: 'active',
        createdAt: '2030-01-01T00:00:00Z',
        tags: ['VIP'],
        emails: [{ email: 'target@example.com', status: 'verified' }],
      },
    ]);
  });
  afterAll(() => app.close());

  const ids = (res: { body: { data: { id: string }[] } }, map = seeded) =>
    res.body.data.map((c) => map.keys[c.id] ?? `foreign:${c.id}`);
  const targetRules = {
    operator: 'and',
    conditions: [{ field: 'firstName', operator: 'equals', value: 'target' }],
  };

  describe('create, read, update, delete', () => {
    it('creates a dynamic segment and returns the record of §6', async () => {
      const res = await s.http
        .post(SEGMENTS, { name: 'Targets', description: 'd', type: 'dynamic', rules: targetRules })
        .expect(201);
      expect(res.body).toMatchObject({ success: true, message: expect.any(String) });
      expect(res.body.data).toEqual({
        id: expect.any(String),
        organizationId: s.org.id,
        name: 'Targets',
        description: 'd',
        type: 'dynamic',
        rules: targetRules,
        contactCount: null,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      const counted = await s.http
        .get(`${SEGMENTS}/${res.body.data.id}?withCounts=true`)
        .expect(200);
      expect(counted.body.data.contactCount).toBe(1);
    });

    it('creates a static segment with initial members and an exact count', async () => {
      const res = await s.http
        .post(SEGMENTS, {
          name: 'Static',
          type: 'static',
          contactIds: [seeded.ids.c1, seeded.ids.c2, seeded.ids.c1.toUpperCase()],
        })
        .expect(201);
      expect(res.body.data).toMatchObject({ type: 'static', rules: null, contactCount: 2 });
    });

    it.each([
      [{ name: 'x', type: 'dynamic' }, 'rules', 'required'],
      [{ name: 'x', type: 'static', rules: targetRules }, 'rules', 'unknown'],
      [
        { name: 'x', type: 'dynamic', rules: targetRules, contactIds: [NIL_UUID] },
        'contactIds',
        'unknown',
      ],
      [{ name: 'x', type: 'smart' }, 'type', 'enum'],
      [{ type: 'static' }, 'name', 'required'],
      [{ name: 'x', type: 'static', contactIds: ['nope'] }, 'contactIds', 'uuid'],
      [{ name: 'x', type: 'dynamic', rules: 'status = active' }, 'rules', 'type'],
      [{ name: 'x', type: 'static', extra: 1 }, 'extra', 'unknown'],
    ])('refuses %j with 422 on %s (%s)', async (body, field, rule) => {
      const res = await s.http.post(SEGMENTS, body).expect(422);
      expect(res.body.code).toBe('E_VALIDATION_ERROR');
      expect(res.body.errors).toContainEqual({ field, rule, message: expect.any(String) });
    });

    it('refuses a static segment whose contacts are not all in the organization, storing nothing', async () => {
      const before = await s.http.get(SEGMENTS).expect(200);
      await s.http
        .post(SEGMENTS, {
          name: 'x',
          type: 'static',
          contactIds: [seeded.ids.c1, otherSeeded.ids.target],
        })
        .expect(404);
      const after = await s.http.get(SEGMENTS).expect(200);
      expect(after.body.meta.total).toBe(before.body.meta.total);
    });

    it('lists newest first with pagination meta, counting dynamic segments on request', async () => {
      const list = await s.http.get(`${SEGMENTS}?limit=1&page=2`).expect(200);
      expect(list.body.meta).toMatchObject({
        perPage: 1,
        currentPage: 2,
        firstPage: 1,
        previousPageUrl: `${SEGMENTS}?limit=1&page=1`,
      });
      expect(list.body.data).toHaveLength(1);
      const plain = await s.http.get(`${SEGMENTS}?limit=100`).expect(200);
      const counted = await s.http.get(`${SEGMENTS}?limit=100&withCounts=true`).expect(200);
      const dyn = (r: { body: { data: { type: string; contactCount: number | null }[] } }) =>
        r.body.data.filter((x) => x.type === 'dynamic').map((x) => x.contactCount);
      expect(dyn(plain).every((c) => c === null)).toBe(true);
      expect(dyn(counted).every((c) => typeof c === 'number')).toBe(true);
      await s.http.get(`${SEGMENTS}?withCounts=yes`).expect(422);
      await s.http.get(`${SEGMENTS}?limit=101`).expect(422);
    });

    it('updates name, description and rules; rules on a static segment → 409; type is fixed', async () => {
      const dyn = await s.http
        .post(SEGMENTS, { name: 'a', type: 'dynamic', rules: targetRules })
        .expect(201);
      const id = dyn.body.data.id;
      const newRules = {
        operator: 'or',
        conditions: [
          { field: 'firstName', operator: 'equals', value: 'c1' },
          { field: 'firstName', operator: 'equals', value: 'c2' },
        ],
      };
      const upd = await s.http
        .patch(`${SEGMENTS}/${id}`, { name: 'b', description: null, rules: newRules })
        .expect(200);
      expect(upd.body.data).toMatchObject({ name: 'b', description: null, rules: newRules });
      expect(ids(await s.http.get(`${SEGMENTS}/${id}/contacts`).expect(200))).toEqual(['c2', 'c1']);
      const bad = await s.http
        .patch(`${SEGMENTS}/${id}`, {
          rules: { operator: 'and', conditions: [{ field: 'nope', operator: 'equals' }] },
        })
        .expect(422);
      expect(bad.body.errors[0].field).toBe('rules.conditions.0.field');
      await s.http.patch(`${SEGMENTS}/${id}`, { type: 'static' }).expect(422);

      const st = await s.http.post(SEGMENTS, { name: 's', type: 'static' }).expect(201);
      const conflict = await s.http
        .patch(`${SEGMENTS}/${st.body.data.id}`, { rules: targetRules })
        .expect(409);
      expect(conflict.body.code).toBe('E_BUSINESS_RULE_VIOLATION');
    });

    it('deletes a segment; it is 404 afterwards', async () => {
      const st = await s.http
        .post(SEGMENTS, { name: 'gone', type: 'static', contactIds: [seeded.ids.c3] })
        .expect(201);
      const id = st.body.data.id;
      await s.http.delete(`${SEGMENTS}/${id}`).expect(200);
      await s.http.get(`${SEGMENTS}/${id}`).expect(404);
      await s.http.delete(`${SEGMENTS}/${id}`).expect(404);
      const [row] = await ds.query(
        `SELECT count(*)::int AS n FROM contact_segment_members WHERE segment_id = $1`,
        [id],
      );
      expect(row.n).toBe(0);
    });

    it('needs contacts:read to read and contacts:write to write', async () => {
      const reader = await createSession(app, { scopes: ['contacts:read'] });
      const writer = await createSession(app, { scopes: ['messages:read'] });
      const created = await s.http.post(SEGMENTS, { name: 'x', type: 'static' }).expect(201);
      await reader.http.get(SEGMENTS).expect(200);
      await reader.http.post(`${SEGMENTS}/preview`, { rules: targetRules }).expect(200);
      const denied = await reader.http.post(SEGMENTS, { name: 'x', type: 'static' }).expect(403);
      expect(denied.body.code).toBe('E_INSUFFICIENT_SCOPE');
      await writer.http.get(SEGMENTS).expect(403);
      await writer.http.get(`${SEGMENTS}/${created.body.data.id}/contacts`).expect(403);
    });

    it('answers 422 for a non-UUID id', async () => {
      const res = await s.http.get(`${SEGMENTS}/not-a-uuid/contacts`).expect(422);
      expect(res.body.errors[0]).toMatchObject({ field: 'id', rule: 'uuid' });
    });
  });

  describe('static membership', () => {
    let id: string;
    const count = async () =>
      (await s.http.get(`${SEGMENTS}/${id}`).expect(200)).body.data.contactCount;
    const stored = async () =>
      (
        await ds.query(
          `SELECT count(*)::int AS n FROM contact_segment_members WHERE segment_id = $1`,
          [id],
        )
      )[0].n;

    beforeAll(async () => {
      id = (await s.http.post(SEGMENTS, { name: 'members', type: 'static' }).expect(201)).body.data
        .id;
    });

    it('adds idempotently and removes, keeping contactCount exact', async () => {
      let res = await s.http
        .post(`${SEGMENTS}/${id}/members`, { contactIds: [seeded.ids.c1, seeded.ids.c2] })
        .expect(200);
      expect(res.body.data.contactCount).toBe(2);
      res = await s.http
        .post(`${SEGMENTS}/${id}/members`, {
          contactIds: [seeded.ids.c2, seeded.ids.c3, seeded.ids.c3],
        })
        .expect(200);
      expect(res.body.data.contactCount).toBe(3);
      res = await s.http
        .delete(`${SEGMENTS}/${id}/members`, { contactIds: [seeded.ids.c1, seeded.ids.c4] })
        .expect(200);
      expect(res.body.data.contactCount).toBe(2);
      expect(await stored()).toBe(2);
    });

    it("refuses another organization's contact with 404 and changes nothing", async () => {
      const before = await count();
      const res = await s.http
        .post(`${SEGMENTS}/${id}/members`, {
          contactIds: [seeded.ids.c10, otherSeeded.ids.target],
        })
        .expect(404);
      expect(res.body.code).toBe('E_ROW_NOT_FOUND');
      await s.http
        .delete(`${SEGMENTS}/${id}/members`, { contactIds: [otherSeeded.ids.target] })
        .expect(404);
      expect(await count()).toBe(before);
      expect(await stored()).toBe(before);
    });

    it('validates contactIds', async () => {
      await s.http.post(`${SEGMENTS}/${id}/members`, { contactIds: [] }).expect(422);
      await s.http.post(`${SEGMENTS}/${id}/members`, { contactIds: ['x'] }).expect(422);
      await s.http.post(`${SEGMENTS}/${id}/members`, {}).expect(422);
    });

    it('stays exact under concurrent overlapping adds and removes', async () => {
      const pool = Array.from({ length: 12 }, (_, i) => seeded.ids[`c${i + 5}`]);
      await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          i % 3 === 2
            ? s.http.delete(`${SEGMENTS}/${id}/members`, { contactIds: pool.slice(i, i + 3) })
            : s.http.post(`${SEGMENTS}/${id}/members`, { contactIds: pool.slice(i, i + 5) }),
        ).map((r) => r.expect(200)),
      );
      expect(await count()).toBe(await stored());
    });

    it('decrements contactCount when a member contact is deleted', async () => {
      await s.http.post(`${SEGMENTS}/${id}/members`, { contactIds: [seeded.ids.c25] }).expect(200);
      const before = await count();
      // A throwaway contact, so other tests keep theirs.
      const extra = await seedContacts(app, s.org.id, [
        { key: 'tmp', firstName: 'tmp', createdAt: '2020-01-01T00:00:00Z' },
      ]);
      await s.http.post(`${SEGMENTS}/${id}/members`, { contactIds: [extra.ids.tmp] }).expect(200);
      expect(await count()).toBe(before + 1);
      await ds.query(`DELETE FROM contacts WHERE id = $1`, [extra.ids.tmp]);
      expect(await count()).toBe(before);
      expect(await stored()).toBe(before);
    });
  });

  describe('static keeps, dynamic follows', () => {
    it('a static segment keeps members that stop matching; a dynamic one follows at once', async () => {
      const [a, b] = await seedContacts(app, s.org.id, [
        { key: 'fa', firstName: 'Follow', status: 'active', createdAt: '2024-01-02T00:00:00Z' },
        { key: 'fb', firstName: 'Other', status: 'inactive', createdAt: '2024-01-01T00:00:00Z' },
      ]).then((x) => [x.ids.fa, x.ids.fb]);
      const rules = {
        operator: 'and',
        conditions: [
          { field: 'firstName', operator: 'equals', value: 'follow' },
          { field: 'status', operator: 'equals', value: 'active' },
        ],
      };
      const dyn = (await s.http.post(SEGMENTS, { name: 'dyn', type: 'dynamic', rules }).expect(201))
        .body.data.id;
      const st = (
        await s.http.post(SEGMENTS, { name: 'st', type: 'static', contactIds: [a] }).expect(201)
      ).body.data.id;
      const members = async (seg: string) =>
        (await s.http.get(`${SEGMENTS}/${seg}/contacts`).expect(200)).body.data.map(
          (c: { id: string }) => c.id,
        );

      expect(await members(dyn)).toEqual([a]);
      expect(await members(st)).toEqual([a]);

      // a stops matching, b starts matching: the very next request reflects it.
      await ds.query(`UPDATE contacts SET status = 'archived', first_name = 'Gone' WHERE id = $1`, [
        a,
      ]);
      await ds.query(`UPDATE contacts SET status = 'active', first_name = 'FOLLOW' WHERE id = $1`, [
        b,
      ]);
      expect(await members(dyn)).toEqual([b]);
      expect(await members(st)).toEqual([a]);
      const counted = await s.http.get(`${SEGMENTS}/${dyn}?withCounts=true`).expect(200);
      expect(counted.body.data.contactCount).toBe(1);

      // Members of a dynamic segment cannot be changed.
      for (const res of [
        await s.http.post(`${SEGMENTS}/${dyn}/members`, { contactIds: [a] }),
        await s.http.delete(`${SEGMENTS}/${dyn}/members`, { contactIds: [b] }),
      ]) {
        expect(res.status).toBe(409);
        expect(res.body.code).toBe('E_BUSINESS_RULE_VIOLATION');
      }
      expect(await members(dyn)).toEqual([b]);
    });
  });

  describe('dynamic segments follow changes made through the contacts API', () => {
    it('a created, re-tagged, updated and deleted contact shows on the next request', async () => {
      const rules = {
        operator: 'and',
        conditions: [
          { field: 'tags', operator: 'hasAny', value: ['Follow-Tag'] },
          { field: 'status', operator: 'equals', value: 'active' },
          { field: 'email', operator: 'isNotEmpty' },
        ],
      };
      const seg = (await s.http.post(SEGMENTS, { name: 'api', type: 'dynamic', rules }).expect(201))
        .body.data.id;
      const members = async () =>
        (await s.http.get(`${SEGMENTS}/${seg}/contacts`).expect(200)).body.data.map(
          (c: { id: string }) => c.id,
        );
      const created = await s.http
        .post('/api/v1/user/contacts', {
          firstName: 'Via',
          lastName: 'Api',
          status: 'inactive',
          emails: [{ email: 'via.api@example.com' }],
        })
        .expect(201);
      const id = created.body.data.id;
      expect(await members()).toEqual([]);
      await s.http.post(`/api/v1/user/contacts/${id}/tags`, { names: ['follow-tag'] }).expect(200);
      expect(await members()).toEqual([]);
      await s.http.patch(`/api/v1/user/contacts/${id}`, { status: 'active' }).expect(200);
      expect(await members()).toEqual([id]);
      const page = await s.http.get(`${SEGMENTS}/${seg}/contacts`).expect(200);
      expect(page.body.data[0]).toMatchObject({
        tags: ['follow-tag'],
        emails: [expect.objectContaining({ email: 'via.api@example.com' })],
      });
      await s.http.delete(`/api/v1/user/contacts/${id}`).expect(200);
      expect(await members()).toEqual([]);
    });
  });

  describe('GET /contact-segments/{id}/contacts', () => {
    it('pages newest first with spec meta, emails and tags preloaded', async () => {
      const rules = {
        operator: 'or',
        conditions: [
          { field: 'firstName', operator: 'startsWith', value: 'c' },
          { field: 'firstName', operator: 'equals', value: 'target' },
        ],
      };
      const id = (await s.http.post(SEGMENTS, { name: 'page', type: 'dynamic', rules }).expect(201))
        .body.data.id;
      const p1 = await s.http.get(`${SEGMENTS}/${id}/contacts?limit=10`).expect(200);
      expect(p1.body.meta).toEqual({
        total: 26,
        perPage: 10,
        currentPage: 1,
        lastPage: 3,
        firstPage: 1,
        firstPageUrl: `${SEGMENTS}/${id}/contacts?limit=10&page=1`,
        lastPageUrl: `${SEGMENTS}/${id}/contacts?limit=10&page=3`,
        nextPageUrl: `${SEGMENTS}/${id}/contacts?limit=10&page=2`,
        previousPageUrl: null,
      });
      expect(ids(p1)).toEqual([
        'c25',
        'c24',
        'c23',
        'c22',
        'c21',
        'c20',
        'c19',
        'c18',
        'c17',
        'c16',
      ]);
      const p3 = await s.http.get(`${SEGMENTS}/${id}/contacts?limit=10&page=3`).expect(200);
      expect(ids(p3)).toEqual(['c5', 'c4', 'c3', 'c2', 'c1', 'target']);
      expect(p3.body.meta.nextPageUrl).toBeNull();
      const beyond = await s.http.get(`${SEGMENTS}/${id}/contacts?page=9`).expect(200);
      expect(beyond.body.data).toEqual([]);

      const onlyTarget = await s.http
        .post(`${SEGMENTS}/preview`, { rules: targetRules })
        .expect(200);
      expect(onlyTarget.body.data.count).toBe(1);
      const c = onlyTarget.body.data.sample[0];
      expect(c).toMatchObject({
        id: seeded.ids.target,
        organizationId: s.org.id,
        firstName: 'Target',
        lastName: null,
        status: 'active',
        tags: ['alpha', 'VIP'],
      });
      expect(c.emails.map((e: { email: string; status: string }) => [e.email, e.status])).toEqual([
        ['target@example.com', 'verified'],
        ['target.alt@example.com', 'bounced'],
      ]);
      expect(c.emails[0]).toMatchObject({
        contactId: seeded.ids.target,
        organizationId: s.org.id,
        isPrimary: true,
        bounceCount: 0,
      });
    });

    it.each(['page=0', 'limit=0', 'limit=101', 'page=x'])('refuses %s with 422', async (q) => {
      const id = (await s.http.post(SEGMENTS, { name: 'q', type: 'static' }).expect(201)).body.data
        .id;
      const res = await s.http.get(`${SEGMENTS}/${id}/contacts?${q}`).expect(422);
      expect(res.body.errors[0].field).toBe(q.split('=')[0]);
    });

    it('returns the members of a static segment', async () => {
      const id = (
        await s.http
          .post(SEGMENTS, {
            name: 'st',
            type: 'static',
            contactIds: [seeded.ids.c7, seeded.ids.target, seeded.ids.c9],
          })
          .expect(201)
      ).body.data.id;
      const res = await s.http.get(`${SEGMENTS}/${id}/contacts?limit=2`).expect(200);
      expect(ids(res)).toEqual(['c9', 'c7']);
      expect(res.body.meta).toMatchObject({ total: 3, lastPage: 2 });
      const p2 = await s.http.get(`${SEGMENTS}/${id}/contacts?limit=2&page=2`).expect(200);
      expect(ids(p2)).toEqual(['target']);
      expect(p2.body.data[0].emails).toHaveLength(2);
    });
  });

  describe('display names stored encrypted (§5)', () => {
    it('never match a fragment of their ciphertext, count as "not equal", and read back in the clear', async () => {
      const own = await createSession(app);
      const people = await seedContacts(app, own.org.id, [
        {
          key: 'mail',
          displayName: fieldCipher().encrypt('gina@example.com'),
          createdAt: '2025-01-02T00:00:00Z',
          emails: [{ email: 'gina@example.com', status: 'verified' }],
        },
        { key: 'plain', displayName: 'v1: plain', createdAt: '2025-01-01T00:00:00Z' },
      ]);
      const match = async (operator: string, value?: string) => {
        const res = await own.http
          .post(`${SEGMENTS}/preview`, {
            rules: { operator: 'and', conditions: [{ field: 'displayName', operator, value }] },
          })
          .expect(200);
        return ids({ body: { data: res.body.data.sample } }, people);
      };
      expect(await match('startsWith', 'v1:')).toEqual(['plain']);
      expect(await match('contains', 'gina')).toEqual([]);
      expect(await match('notContains', 'gina')).toEqual(['mail', 'plain']);
      expect(await match('notEquals', 'v1: plain')).toEqual(['mail']);
      expect(await match('isNotEmpty')).toEqual(['mail', 'plain']);
      const res = await own.http
        .post(`${SEGMENTS}/preview`, {
          rules: {
            operator: 'and',
            conditions: [{ field: 'email', operator: 'equals', value: 'gina@example.com' }],
          },
        })
        .expect(200);
      expect(res.body.data.sample[0].displayName).toBe('gina@example.com');
    });
  });

  describe('tenancy', () => {
    it("answers 404 for another organization's segment on every route", async () => {
      const theirs = (
        await other.http
          .post(SEGMENTS, { name: 'theirs', type: 'static', contactIds: [otherSeeded.ids.target] })
          .expect(201)
      ).body.data.id;
      const theirsDyn = (
        await other.http
          .post(SEGMENTS, { name: 'theirs', type: 'dynamic', rules: targetRules })
          .expect(201)
      ).body.data.id;
      for (const seg of [theirs, theirsDyn, NIL_UUID]) {
        const responses = [
          await s.http.get(`${SEGMENTS}/${seg}`),
          await s.http.get(`${SEGMENTS}/${seg}?withCounts=true`),
          await s.http.patch(`${SEGMENTS}/${seg}`, { name: 'mine now' }),
          await s.http.post(`${SEGMENTS}/${seg}/members`, { contactIds: [seeded.ids.c1] }),
          await s.http.delete(`${SEGMENTS}/${seg}/members`, { contactIds: [seeded.ids.c1] }),
          await s.http.get(`${SEGMENTS}/${seg}/contacts`),
          await s.http.delete(`${SEGMENTS}/${seg}`),
        ];
        for (const res of responses) {
          expect(res.status).toBe(404);
          expect(res.body).toMatchObject({ success: false, code: 'E_ROW_NOT_FOUND' });
        }
      }
      // Still there, unchanged, for its owner.
      const mine = await other.http.get(`${SEGMENTS}/${theirs}`).expect(200);
      expect(mine.body.data).toMatchObject({ name: 'theirs', contactCount: 1 });
      const list = await s.http.get(`${SEGMENTS}?limit=100`).expect(200);
      expect(list.body.data.map((x: { id: string }) => x.id)).not.toContain(theirs);
    });

    it("never returns another organization's look-alike contacts", async () => {
      const rules = {
        operator: 'and',
        conditions: [
          { field: 'firstName', operator: 'equals', value: 'target' },
          { field: 'tags', operator: 'hasAny', value: ['vip'] },
          { field: 'email', operator: 'equals', value: 'target@example.com' },
          { field: 'emailStatus', operator: 'equals', value: 'verified' },
          { field: 'status', operator: 'equals', value: 'active' },
        ],
      };
      const id = (await s.http.post(SEGMENTS, { name: 'la', type: 'dynamic', rules }).expect(201))
        .body.data.id;
      const res = await s.http.get(`${SEGMENTS}/${id}/contacts`).expect(200);
      expect(ids(res)).toEqual(['target']);
      expect(res.body.meta.total).toBe(1);
      const prev = await s.http.post(`${SEGMENTS}/preview`, { rules }).expect(200);
      expect(prev.body.data.count).toBe(1);
      // And the other way round: their segment shows theirs only.
      const theirs = await other.http.post(`${SEGMENTS}/preview`, { rules }).expect(200);
      expect(theirs.body.data.sample.map((c: { id: string }) => c.id)).toEqual([
        otherSeeded.ids.target,
      ]);
    });
  });
});
