// GET /contacts (§5): every filter, sort field and direction, search by name fragment and exact
// email / phone, pagination meta to the letter, meta.filters / appliedFilters, and the query
// limits. Channel records and tags are preloaded with a fixed number of queries per page.
import { INestApplication } from '@nestjs/common';
import { Client } from 'pg';
import { createTestApp } from '../support/app';
import { createSession, Session } from '../support/session';
import {
  CHANNEL_ARRAY_KEYS,
  CONTACT_KEYS,
  CONTACTS,
  createContact,
  keys,
  rulesOf,
  sorted,
} from './contacts-support';

interface Row {
  id: string;
  firstName: string | null;
  lastName: string | null;
  status: string;
  createdAt: string;
  updatedAt: string;
  lastActivityAt: string | null;
}

const FIELDS = ['firstName', 'lastName', 'createdAt', 'updatedAt', 'lastActivityAt'] as const;

/** The documented order: values by the field, NULLs last in both directions, ties by id. */
function expectedOrder(rows: Row[], field: (typeof FIELDS)[number], dir: 'asc' | 'desc'): string[] {
  const sign = dir === 'asc' ? 1 : -1;
  return [...rows]
    .sort((a, b) => {
      const va = a[field];
      const vb = b[field];
      if (va === null && vb !== null) return 1;
      if (vb === null && va !== null) return -1;
      if (va !== null && vb !== null && va !== vb) return (va < vb ? -1 : 1) * sign;
      return (a.id < b.id ? -1 : 1) * sign;
    })
    .map((r) => r.id);
}

describe('GET /contacts', () => {
  let app: INestApplication;
  let s: Session;
  let rows: Row[];
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    app = await createTestApp();
    s = await createSession(app);
    const specs: [string, Record<string, unknown>][] = [
      [
        'alice',
        {
          firstName: 'Alice',
          lastName: 'Zephyr',
          lastActivityAt: '2025-01-03T00:00:00.000Z',
          emails: [{ email: 'alice@list.example' }],
          smsNumbers: [{ phoneNumber: '+14155550123' }],
          tags: ['vip'],
        },
      ],
      [
        'bob',
        {
          firstName: 'Bob',
          lastName: 'Young',
          status: 'inactive',
          lastActivityAt: '2025-01-01T00:00:00.000Z',
          emails: [{ email: 'Bob@List.example' }],
          whatsappAccounts: [{ phoneNumber: '+447700900001' }],
        },
      ],
      [
        'carol',
        {
          firstName: 'Carol',
          lastName: 'Xavier',
          status: 'archived',
          telegramAccounts: [{ phoneNumber: '+4915100000001', username: 'carolx' }],
          tags: ['vip', 'press'],
        },
      ],
      [
        'dave',
        {
          firstName: 'Dave',
          lastActivityAt: '2025-01-02T00:00:00.000Z',
          imessageAccounts: [{ appleId: 'dave@icloud.example' }],
          pushNotifications: [{ deviceToken: 'dave-device', platform: 'web' }],
        },
      ],
      ['eve', { emails: [{ email: 'eve@list.example' }] }],
      [
        'frank',
        {
          firstName: 'Frank',
          lastName: 'Alison',
          emails: [{ email: 'frank@list.example' }],
          smsNumbers: [{ phoneNumber: '+14155550124' }],
        },
      ],
    ];
    for (const [name, body] of specs) ids[name] = (await createContact(s, body)).id;
    // Move updatedAt away from createdAt order.
    await s.http.patch(`${CONTACTS}/${ids.alice}`, { notes: 'touched' }).expect(200);
    await s.http.patch(`${CONTACTS}/${ids.dave}`, { notes: 'touched' }).expect(200);
    rows = (await s.http.get(`${CONTACTS}?limit=100`).expect(200)).body.data;
    expect(rows).toHaveLength(6);
  });
  afterAll(() => app.close());

  const list = async (qs: string) => (await s.http.get(`${CONTACTS}?${qs}`).expect(200)).body;
  const idsOf = (body: { data: { id: string }[] }) => body.data.map((c) => c.id);

  it('answers Contacts with channel records and tag names preloaded, newest first by default', async () => {
    const body = await list('');
    expect(body.message).toBe('Contacts fetched successfully');
    expect(idsOf(body)).toEqual(expectedOrder(rows, 'createdAt', 'desc'));
    const alice = body.data.find((c: { id: string }) => c.id === ids.alice);
    expect(keys(alice)).toEqual(sorted([...CONTACT_KEYS, ...CHANNEL_ARRAY_KEYS]));
    expect(alice.tags).toEqual(['vip']);
    expect(alice.emails[0].email).toBe('alice@list.example');
    expect(alice.smsNumbers[0].phoneNumber).toBe('+14155550123');
    const carol = body.data.find((c: { id: string }) => c.id === ids.carol);
    expect(carol.tags).toEqual(['press', 'vip']);
    expect(carol.telegramAccounts[0].username).toBe('carolx');
    const dave = body.data.find((c: { id: string }) => c.id === ids.dave);
    expect(dave.imessageAccounts[0].appleId).toBe('dave@icloud.example');
    expect(dave.pushNotifications[0].deviceToken).toBe('dave-device');
  });

  it('meta carries filters (every accepted filter with its values) and appliedFilters', async () => {
    const body = await list('');
    expect(body.meta.filters).toEqual({
      status: { type: 'enum', values: ['active', 'inactive', 'archived'] },
      channel: {
        type: 'enum',
        values: ['email', 'sms', 'whatsapp', 'telegram', 'imessage', 'push'],
      },
      sortBy: {
        type: 'enum',
        values: ['firstName', 'lastName', 'createdAt', 'updatedAt', 'lastActivityAt'],
      },
      sortOrder: { type: 'enum', values: ['asc', 'desc'] },
      search: { type: 'string', minLength: 1 },
      page: { type: 'integer', min: 1 },
      limit: { type: 'integer', min: 1, max: 100 },
    });
    expect(body.meta.appliedFilters).toEqual({
      page: 1,
      limit: 20,
      search: null,
      status: null,
      channel: null,
      sortBy: 'createdAt',
      sortOrder: 'desc',
    });
    const applied = (
      await list(
        'search=%20Ali%20&status=active&channel=sms&sortBy=lastName&sortOrder=asc&limit=5&page=1',
      )
    ).meta.appliedFilters;
    expect(applied).toEqual({
      page: 1,
      limit: 5,
      search: 'Ali',
      status: 'active',
      channel: 'sms',
      sortBy: 'lastName',
      sortOrder: 'asc',
    });
  });

  it.each(FIELDS.flatMap((f) => (['asc', 'desc'] as const).map((d) => [f, d] as const)))(
    'sorts by %s %s',
    async (field, dir) => {
      const body = await list(`sortBy=${field}&sortOrder=${dir}`);
      expect(idsOf(body)).toEqual(expectedOrder(rows, field, dir));
    },
  );

  it.each(['firstName', 'lastName', 'lastActivityAt'] as const)(
    'pages of %s descending cross from the values to the NULLs in order, filtered or not',
    async (field) => {
      const paged = async (qs: string) => {
        const out: string[] = [];
        for (let page = 1; page <= 4; page++) {
          const body = await list(`${qs}&sortBy=${field}&sortOrder=desc&limit=2&page=${page}`);
          out.push(...idsOf(body));
        }
        return out;
      };
      expect(await paged('')).toEqual(expectedOrder(rows, field, 'desc'));
      const active = rows.filter((r) => r.status === 'active');
      expect(await paged('status=active')).toEqual(expectedOrder(active, field, 'desc'));
      // A search sorts its matches the same way ("o": Bob, Carol, Frank Alison).
      const body = await list(`search=o&sortBy=${field}&sortOrder=desc`);
      const matches = rows.filter((r) => [ids.bob, ids.carol, ids.frank].includes(r.id));
      expect(idsOf(body)).toEqual(expectedOrder(matches, field, 'desc'));
    },
  );

  it('sortOrder alone applies to the default field, sortBy alone sorts descending', async () => {
    expect(idsOf(await list('sortOrder=asc'))).toEqual(expectedOrder(rows, 'createdAt', 'asc'));
    expect(idsOf(await list('sortBy=firstName'))).toEqual(expectedOrder(rows, 'firstName', 'desc'));
  });

  it.each([
    ['active', ['alice', 'dave', 'eve', 'frank']],
    ['inactive', ['bob']],
    ['archived', ['carol']],
  ])('filters status=%s', async (status, names) => {
    const body = await list(`status=${status}&sortBy=createdAt&sortOrder=asc`);
    expect(idsOf(body)).toEqual(names.map((n) => ids[n]));
    expect(body.meta.total).toBe(names.length);
  });

  it.each([
    ['email', ['alice', 'bob', 'eve', 'frank']],
    ['sms', ['alice', 'frank']],
    ['whatsapp', ['bob']],
    ['telegram', ['carol']],
    ['imessage', ['dave']],
    ['push', ['dave']],
  ])('filters channel=%s (contacts with at least one record there)', async (channel, names) => {
    const body = await list(`channel=${channel}&sortOrder=asc`);
    expect(idsOf(body)).toEqual(names.map((n) => ids[n]));
    expect(body.meta.total).toBe(names.length);
  });

  it('the channel filter follows records added and deleted later', async () => {
    const add = await s.http
      .post(`${CONTACTS}/${ids.carol}/push`, { deviceToken: 'carol-device', platform: 'ios' })
      .expect(201);
    let body = await list('channel=push&sortOrder=asc');
    expect(new Set(idsOf(body))).toEqual(new Set([ids.carol, ids.dave]));
    expect(body.meta.total).toBe(2);
    await s.http.delete(`${CONTACTS}/${ids.carol}/push/${add.body.data.id}`).expect(200);
    body = await list('channel=push');
    expect(idsOf(body)).toEqual([ids.dave]);
    expect(body.meta.total).toBe(1);
  });

  it('combines status, channel and sort (the benchmarked query)', async () => {
    const body = await list('status=active&channel=sms&sortBy=lastName');
    expect(idsOf(body)).toEqual([ids.alice, ids.frank]); // Zephyr, Alison descending
    expect(body.meta.total).toBe(2);
    const none = await list('status=inactive&channel=sms');
    expect(none.data).toEqual([]);
    expect(none.meta.total).toBe(0);
  });

  it('searches a name fragment case-insensitively in first, last and display name', async () => {
    // "aLI": Alice (first name), Alison (last name) — and nobody else.
    const body = await list('search=aLI&sortOrder=asc');
    expect(idsOf(body)).toEqual([ids.alice, ids.frank]);
    expect(body.meta.total).toBe(2);
    expect(idsOf(await list('search=young'))).toEqual([ids.bob]);
    // A fragment matches within one field, never across first and last name.
    expect((await list('search=ceZep')).data).toEqual([]);
    expect(idsOf(await list('search=ce%20Zep'))).toEqual([ids.alice]); // the display name
    // Eve has no name: her displayName is her address, which is stored encrypted, so she is
    // found by her exact address only.
    expect((await list('search=eve%40list')).data).toEqual([]);
    expect(idsOf(await list('search=EVE%40list.example'))).toEqual([ids.eve]);
    // LIKE wildcards are literal.
    expect((await list('search=%25')).data).toEqual([]);
    expect((await list('search=_')).data).toEqual([]);
  });

  it('searches an exact email address or phone number through the blind index', async () => {
    expect(idsOf(await list('search=bob%40list.example'))).toEqual([ids.bob]);
    expect(idsOf(await list('search=%20BOB%40LIST.EXAMPLE%20'))).toEqual([ids.bob]);
    expect(idsOf(await list('search=frank%40list.example'))).toEqual([ids.frank]);
    // A fragment of an address is not an exact address (and names do not contain it).
    expect((await list('search=frank%40list')).data).toEqual([]);
    expect(idsOf(await list('search=%2B14155550124'))).toEqual([ids.frank]);
    expect(idsOf(await list('search=%2B1%20415%20555%200123'))).toEqual([ids.alice]);
    expect(idsOf(await list('search=%2B447700900001'))).toEqual([ids.bob]);
    // Filters still apply to search results.
    expect((await list('search=bob%40list.example&status=active')).data).toEqual([]);
  });

  it('paginates with the spec meta, URLs keeping the other query parameters', async () => {
    const byFirst = expectedOrder(rows, 'firstName', 'asc');
    const p1 = await list('limit=4&sortBy=firstName&sortOrder=asc');
    expect(idsOf(p1)).toEqual(byFirst.slice(0, 4));
    const meta1 = { ...p1.meta };
    delete meta1.filters;
    delete meta1.appliedFilters;
    expect(meta1).toEqual({
      total: 6,
      perPage: 4,
      currentPage: 1,
      lastPage: 2,
      firstPage: 1,
      firstPageUrl: '/api/v1/user/contacts?limit=4&sortBy=firstName&sortOrder=asc&page=1',
      lastPageUrl: '/api/v1/user/contacts?limit=4&sortBy=firstName&sortOrder=asc&page=2',
      nextPageUrl: '/api/v1/user/contacts?limit=4&sortBy=firstName&sortOrder=asc&page=2',
      previousPageUrl: null,
    });
    const p2 = await list('page=2&limit=4&sortBy=firstName&sortOrder=asc');
    expect(idsOf(p2)).toEqual(byFirst.slice(4));
    expect(p2.meta).toMatchObject({
      total: 6,
      perPage: 4,
      currentPage: 2,
      lastPage: 2,
      firstPage: 1,
      firstPageUrl: '/api/v1/user/contacts?limit=4&sortBy=firstName&sortOrder=asc&page=1',
      lastPageUrl: '/api/v1/user/contacts?limit=4&sortBy=firstName&sortOrder=asc&page=2',
      nextPageUrl: null,
      previousPageUrl: '/api/v1/user/contacts?limit=4&sortBy=firstName&sortOrder=asc&page=1',
    });
    // A middle page has both links.
    const mid = await list('limit=2&page=2');
    expect(mid.meta).toMatchObject({
      currentPage: 2,
      lastPage: 3,
      nextPageUrl: '/api/v1/user/contacts?limit=2&page=3',
      previousPageUrl: '/api/v1/user/contacts?limit=2&page=1',
    });
    // Past the end: empty page, no next link.
    const past = await list('limit=4&page=9');
    expect(past.data).toEqual([]);
    expect(past.meta).toMatchObject({ currentPage: 9, lastPage: 2, nextPageUrl: null });
    // Search results paginate the same way.
    // "o": Bob (and Young), Carol, Alison.
    const s1 = await list('search=o&limit=2');
    expect(s1.meta).toMatchObject({
      total: 3,
      lastPage: 2,
      nextPageUrl: '/api/v1/user/contacts?search=o&limit=2&page=2',
      previousPageUrl: null,
    });
    const s2 = await list('search=o&limit=2&page=2');
    expect(s2.data).toHaveLength(1);
    expect(s2.meta).toMatchObject({
      nextPageUrl: null,
      previousPageUrl: '/api/v1/user/contacts?search=o&limit=2&page=1',
    });
    // Limit 1..100 inclusive.
    expect((await list('limit=1')).data).toHaveLength(1);
    expect((await list('limit=100')).data).toHaveLength(6);
  });

  it.each([
    ['limit=0', 'limit', 'min'],
    ['limit=101', 'limit', 'max'],
    ['limit=abc', 'limit', 'type'],
    ['limit=1.5', 'limit', 'type'],
    ['page=0', 'page', 'min'],
    ['search=', 'search', 'minLength'],
    ['search=%20%20', 'search', 'minLength'],
    ['status=deleted', 'status', 'enum'],
    ['channel=fax', 'channel', 'enum'],
    ['sortBy=email', 'sortBy', 'enum'],
    ['sortOrder=up', 'sortOrder', 'enum'],
    ['color=red', 'color', 'unknown'],
  ])('refuses %s with 422 (%s: %s)', async (qs, field, rule) => {
    const res = await s.http.get(`${CONTACTS}?${qs}`).expect(422);
    expect(res.body).toMatchObject({ success: false, code: 'E_VALIDATION_ERROR' });
    expect(rulesOf(res.body, field)).toContain(rule);
  });

  it('lists each contact exactly as GET /contacts/{id} answers it (timestamps to the byte)', async () => {
    // The page reads its records as JSON columns, the read by id through node-postgres's own
    // parsers: both must print the same text, sub-millisecond instants (now()) and early or late
    // years included.
    const edge = await createContact(s, {
      firstName: 'Edge',
      lastActivityAt: '0999-06-15T12:34:56.789Z',
      whatsappAccounts: [{ phoneNumber: '+447700900002', lastSeenAt: '9999-12-31T23:59:59.999Z' }],
      pushNotifications: [
        {
          deviceToken: 'edge-device',
          platform: 'ios',
          lastUsedAt: '0001-01-01T00:00:00.000Z',
          expiresAt: '2999-01-01T00:00:00.001Z',
        },
      ],
    });
    const page = await list('limit=100');
    expect(page.data.map((c: { id: string }) => c.id)).toContain(edge.id);
    for (const listed of page.data) {
      const one = (await s.http.get(`${CONTACTS}/${listed.id}`).expect(200)).body.data;
      delete one.tagRecords;
      delete one.listMemberships;
      expect(JSON.stringify(listed)).toBe(JSON.stringify(one));
    }
    const listed = page.data.find((c: { id: string }) => c.id === edge.id);
    expect(listed.lastActivityAt).toBe('0999-06-15T12:34:56.789Z');
    expect(listed.whatsappAccounts[0].lastSeenAt).toBe('9999-12-31T23:59:59.999Z');
    expect(listed.pushNotifications[0].lastUsedAt).toBe('0001-01-01T00:00:00.000Z');
    expect(listed.pushNotifications[0].expiresAt).toBe('2999-01-01T00:00:00.001Z');
    await s.http.delete(`${CONTACTS}/${edge.id}`).expect(200);
  });

  it('refuses a date past year 9999 or before year 1 with 422 naming the field', async () => {
    const late = await s.http
      .post(CONTACTS, { firstName: 'Late', lastActivityAt: '+010000-01-01T00:00:00.001Z' })
      .expect(422);
    expect(rulesOf(late.body, 'lastActivityAt')).toEqual(['type']);
    const early = await s.http
      .post(CONTACTS, {
        firstName: 'Early',
        pushNotifications: [
          { deviceToken: 'd', platform: 'ios', expiresAt: '-000001-01-01T00:00:00.000Z' },
        ],
      })
      .expect(422);
    expect(early.body.errors.map((e: { field: string }) => e.field)).toContain(
      'pushNotifications.0.expiresAt',
    );
    // Nothing half-written: the page still reads.
    await s.http.get(`${CONTACTS}?limit=100`).expect(200);
  });

  it('needs contacts:read', async () => {
    const other = await createSession(app, { scopes: ['contacts:write'] });
    const res = await other.http.get(CONTACTS).expect(403);
    expect(res.body.code).toBe('E_INSUFFICIENT_SCOPE');
  });

  it('reads a page with its records and tags in one statement, whatever its size (no N+1)', async () => {
    await list('limit=1'); // warm up (key cache, lastUsedAt)
    // Every statement, whichever way it reaches the database (TypeORM or the pool directly).
    const spy = jest.spyOn(Client.prototype, 'query');
    try {
      // Six contacts covering all six channels: the page with its total, every channel's records
      // and the tag names.
      const six = await list('limit=6');
      expect(spy.mock.calls.length).toBe(1);
      for (const key of CHANNEL_ARRAY_KEYS) {
        expect(six.data.some((c: Record<string, unknown[]>) => c[key].length > 0)).toBe(true);
      }
      spy.mockClear();
      await list('limit=1');
      expect(spy.mock.calls.length).toBe(1);
    } finally {
      spy.mockRestore();
    }
  });
});
