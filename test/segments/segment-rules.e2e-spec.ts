// Every field × operator of §6 against seeded contacts,
// checking the exact member set; nested and/or groups to depth 5; depth 6 and 101 conditions → 422
// naming the path. A look-alike copy of every contact lives in a second organization: a rule that
// leaked across organizations would double the counts.
import { INestApplication } from '@nestjs/common';
import { Clock, CUSTOM_FIELD_OPERATORS, FIELD_OPERATORS } from '@app/domain';
import { createTestApp } from '../support/app';
import { ManualClock } from '../support/clock';
import { createSession, Session } from '../support/session';
import { EVERYONE, NOW, PEOPLE } from './fixtures';
import { seedContacts, Seeded } from './seed';

const SEGMENTS = '/api/v1/user/contact-segments';

type Case = [field: string, operator: string, value: unknown, expected: string[]];

const all = (...except: string[]) => EVERYONE.filter((k) => !except.includes(k));

// Values `list:<name>` are replaced by the id of that seeded list.
const CASES: Case[] = [
  ['firstName', 'equals', 'alice', ['alice']],
  ['firstName', 'notEquals', 'Alice', all('alice')],
  ['firstName', 'contains', 'R', ['carol', 'erin', 'frank']],
  ['firstName', 'notContains', 'r', ['alice', 'bob', 'dave']],
  ['firstName', 'startsWith', 'fr', ['frank']],
  ['firstName', 'endsWith', 'N', ['erin']],
  ['firstName', 'isEmpty', undefined, ['dave']],
  ['firstName', 'isNotEmpty', undefined, all('dave')],

  ['lastName', 'equals', 'SMITH', ['alice', 'frank']],
  ['lastName', 'notEquals', 'smith', ['bob', 'carol', 'dave', 'erin']],
  ['lastName', 'contains', 'smith', ['alice', 'erin', 'frank']],
  ['lastName', 'notContains', 'smith', ['bob', 'carol', 'dave']],
  ['lastName', 'startsWith', 'Óla', ['dave']],
  ['lastName', 'endsWith', 'ers', ['erin']],
  ['lastName', 'isEmpty', undefined, ['carol']],
  ['lastName', 'isNotEmpty', undefined, all('carol')],

  ['displayName', 'equals', 'carol', ['carol']],
  ['displayName', 'notEquals', 'Carol', all('carol')],
  ['displayName', 'contains', ' s', ['alice', 'erin', 'frank']],
  ['displayName', 'notContains', 'smith', ['bob', 'carol', 'dave']],
  ['displayName', 'startsWith', 'b', ['bob']],
  ['displayName', 'endsWith', 'SON', ['dave']],
  ['displayName', 'isEmpty', undefined, []],
  ['displayName', 'isNotEmpty', undefined, EVERYONE],

  ['notes', 'equals', 'prefers EMAIL', ['alice']],
  ['notes', 'notEquals', 'Prefers email', all('alice')],
  ['notes', 'contains', 'FER', ['alice', 'dave']],
  ['notes', 'notContains', 'fer', ['bob', 'carol', 'erin', 'frank']],
  ['notes', 'startsWith', 'met', ['dave']],
  ['notes', 'endsWith', 'friend', ['erin']],
  ['notes', 'isEmpty', undefined, ['bob', 'carol', 'frank']],
  ['notes', 'isNotEmpty', undefined, ['alice', 'dave', 'erin']],

  ['status', 'equals', 'active', ['alice', 'erin', 'frank']],
  ['status', 'notEquals', 'active', ['bob', 'carol', 'dave']],
  ['status', 'in', ['inactive', 'archived'], ['bob', 'carol']],
  ['status', 'notIn', ['inactive', 'archived'], ['alice', 'dave', 'erin', 'frank']],

  ['language', 'equals', 'en', ['alice', 'dave', 'frank']],
  ['language', 'notEquals', 'EN', ['bob', 'carol', 'erin']],
  ['language', 'in', ['FR', 'de'], ['bob', 'erin']],
  ['language', 'notIn', ['fr', 'de'], ['alice', 'carol', 'dave', 'frank']],

  ['timezone', 'equals', 'Europe/London', ['alice', 'frank']],
  ['timezone', 'notEquals', 'europe/london', ['bob', 'carol', 'dave', 'erin']],
  ['timezone', 'in', ['Europe/Paris', 'America/New_York'], ['bob', 'dave']],
  ['timezone', 'notIn', ['Europe/Paris', 'America/New_York'], ['alice', 'carol', 'erin', 'frank']],

  ['createdAt', 'before', '2025-01-15', ['carol']],
  ['createdAt', 'after', '2025-05-01', ['alice', 'dave']],
  ['createdAt', 'between', ['2025-01-15', '2025-05-01'], ['bob', 'erin', 'frank']],
  ['createdAt', 'withinLastDays', 7, ['alice', 'dave']],
  ['createdAt', 'notWithinLastDays', 7, ['bob', 'carol', 'erin', 'frank']],
  ['createdAt', 'isEmpty', undefined, []],
  ['createdAt', 'isNotEmpty', undefined, EVERYONE],

  ['updatedAt', 'before', '2025-02-01T00:00:00Z', ['carol']],
  ['updatedAt', 'after', '2025-06-01T00:00:00+02:00', ['alice', 'dave', 'erin']],
  ['updatedAt', 'between', ['2025-01-01', '2025-02-01'], ['carol', 'frank']],
  ['updatedAt', 'withinLastDays', 30, ['alice', 'dave', 'erin']],
  ['updatedAt', 'notWithinLastDays', 30, ['bob', 'carol', 'frank']],
  ['updatedAt', 'isEmpty', undefined, []],
  ['updatedAt', 'isNotEmpty', undefined, EVERYONE],

  ['lastActivityAt', 'before', '2025-03-20', ['carol']],
  ['lastActivityAt', 'after', '2025-03-19', ['alice', 'dave', 'erin']],
  ['lastActivityAt', 'between', ['2025-01-01', '2025-03-20'], ['carol', 'erin']],
  ['lastActivityAt', 'withinLastDays', 90, ['alice', 'dave', 'erin']],
  ['lastActivityAt', 'notWithinLastDays', 90, ['bob', 'carol', 'frank']],
  ['lastActivityAt', 'isEmpty', undefined, ['bob', 'frank']],
  ['lastActivityAt', 'isNotEmpty', undefined, ['alice', 'carol', 'dave', 'erin']],

  ['tags', 'hasAny', ['vip', 'BETA'], ['alice', 'dave', 'erin']],
  ['tags', 'hasAll', ['VIP', 'newsletter'], ['alice']],
  ['tags', 'hasAll', ['vip', 'no-such-tag'], []],
  ['tags', 'hasNone', ['vip', 'Newsletter'], ['carol', 'erin', 'frank']],

  ['lists', 'subscribedTo', ['list:L1'], ['alice', 'frank']],
  ['lists', 'subscribedTo', ['list:L1', 'list:L2'], ['alice', 'bob', 'dave', 'frank']],
  ['lists', 'notSubscribedTo', ['list:L1'], ['bob', 'carol', 'dave', 'erin']],

  ['channel', 'has', ['sms', 'push'], ['alice', 'erin']],
  ['channel', 'has', ['whatsapp'], ['bob']],
  ['channel', 'has', ['telegram'], ['dave']],
  ['channel', 'has', ['imessage'], ['dave']],
  ['channel', 'has', ['email'], all('carol')],
  ['channel', 'hasNot', ['email'], ['carol']],
  ['channel', 'hasNot', ['sms', 'whatsapp'], ['carol', 'dave', 'erin', 'frank']],

  ['email', 'equals', '  FRANK.smith@example.COM ', ['frank']],
  ['email', 'equals', 'dave.work@example.com', ['dave']],
  ['email', 'isEmpty', undefined, ['carol']],
  ['email', 'isNotEmpty', undefined, all('carol')],

  ['emailStatus', 'equals', 'verified', ['alice', 'frank']],
  ['emailStatus', 'in', ['complained', 'bounced'], ['bob', 'dave']],

  ['customFields.plan', 'equals', 'GOLD', ['alice', 'dave']],
  ['customFields.plan', 'notEquals', 'gold', ['bob', 'carol', 'erin', 'frank']],
  ['customFields.plan', 'contains', 'l', ['alice', 'bob', 'dave']],
  ['customFields.plan', 'notContains', 'l', ['carol', 'erin', 'frank']],
  ['customFields.plan', 'startsWith', 'br', ['erin']],
  ['customFields.plan', 'endsWith', 'ER', ['bob']],
  ['customFields.city', 'isEmpty', undefined, all('alice')],
  ['customFields.city', 'isNotEmpty', undefined, ['alice']],
  ['customFields.age', 'gt', 27, ['alice', 'dave']],
  ['customFields.age', 'gte', 27, ['alice', 'bob', 'dave']],
  ['customFields.age', 'lt', 27, ['erin']],
  ['customFields.age', 'lte', 19.5, ['erin']],
  ['customFields.plan', 'gt', 1, []],
];

describe('Segment rules: every field × operator (§6)', () => {
  let app: INestApplication;
  let s: Session;
  let seeded: Seeded;

  beforeAll(async () => {
    app = await createTestApp({
      override: (b) => b.overrideProvider(Clock).useValue(new ManualClock(new Date(NOW))),
    });
    s = await createSession(app, { scopes: ['contacts:read', 'contacts:write'] });
    seeded = await seedContacts(app, s.org.id, PEOPLE);
    // The look-alike organization: the same people, tags, lists and emails.
    const other = await createSession(app);
    await seedContacts(app, other.org.id, PEOPLE);
  });
  afterAll(() => app.close());

  const resolve = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(resolve)
      : typeof v === 'string' && v.startsWith('list:')
        ? seeded.lists[v.slice(5)]
        : v;

  /** The members rules select, by key, checked through the preview (count and full sample). */
  async function members(rules: unknown): Promise<string[]> {
    const res = await s.http.post(`${SEGMENTS}/preview`, { rules });
    expect(res.status).toBe(200);
    const keys = (res.body.data.sample as { id: string }[]).map((c) => seeded.keys[c.id]);
    expect(keys).not.toContain(undefined);
    expect(res.body.data.count).toBe(keys.length);
    return keys.sort();
  }

  it('covers every field and operator of §6', () => {
    const covered = new Set(CASES.map(([f, o]) => `${f.split('.')[0]}:${o}`));
    const wanted = [
      ...Object.entries(FIELD_OPERATORS).flatMap(([f, ops]) => ops.map((o) => `${f}:${o}`)),
      ...CUSTOM_FIELD_OPERATORS.map((o) => `customFields:${o}`),
    ];
    expect(wanted.filter((w) => !covered.has(w))).toEqual([]);
  });

  it.each(CASES)('%s %s %j', async (field, operator, value, expected) => {
    const condition =
      value === undefined ? { field, operator } : { field, operator, value: resolve(value) };
    expect(await members({ operator: 'and', conditions: [condition] })).toEqual(
      [...expected].sort(),
    );
  });

  it('nests and/or groups to depth 5', async () => {
    const rules = {
      operator: 'and',
      conditions: [
        { field: 'status', operator: 'in', value: ['active', 'inactive'] },
        {
          operator: 'or',
          conditions: [
            { field: 'tags', operator: 'hasAny', value: ['newsletter'] },
            {
              operator: 'and',
              conditions: [
                { field: 'lastName', operator: 'contains', value: 'smith' },
                {
                  operator: 'or',
                  conditions: [
                    { field: 'createdAt', operator: 'withinLastDays', value: 100 },
                    {
                      operator: 'and',
                      conditions: [{ field: 'customFields.age', operator: 'lt', value: 20 }],
                    },
                  ],
                },
              ],
            },
          ],
        },
      ],
    };
    expect(await members(rules)).toEqual(['alice', 'bob', 'erin']);
    expect(
      await members({
        operator: 'or',
        conditions: [
          { field: 'firstName', operator: 'equals', value: 'bob' },
          { field: 'email', operator: 'equals', value: 'dave@example.com' },
          {
            operator: 'and',
            conditions: [
              { field: 'status', operator: 'equals', value: 'active' },
              { field: 'tags', operator: 'hasNone', value: ['vip', 'beta'] },
            ],
          },
        ],
      }),
    ).toEqual(['bob', 'dave', 'frank']);

    // The same tree stored as a dynamic segment gives the same members on its contacts route.
    const created = await s.http
      .post(SEGMENTS, { name: 'nested', type: 'dynamic', rules })
      .expect(201);
    const page = await s.http
      .get(`${SEGMENTS}/${created.body.data.id}/contacts?limit=100`)
      .expect(200);
    expect((page.body.data as { id: string }[]).map((c) => seeded.keys[c.id]).sort()).toEqual([
      'alice',
      'bob',
      'erin',
    ]);
  });

  function deep(levels: number): unknown {
    let g: unknown = {
      operator: 'and',
      conditions: [{ field: 'status', operator: 'equals', value: 'active' }],
    };
    for (let i = 1; i < levels; i++) {
      // Alternating `or firstName isEmpty` (adds dave) and `and firstName isNotEmpty` (drops
      // him): a group compiled without its parentheses would give another set.
      g = {
        operator: i % 2 ? 'or' : 'and',
        conditions: [{ field: 'firstName', operator: i % 2 ? 'isEmpty' : 'isNotEmpty' }, g],
      };
    }
    return g;
  }

  it('accepts depth 5 and refuses depth 6 with the path of the sixth group', async () => {
    expect(await members(deep(5))).toEqual(['alice', 'erin', 'frank']);
    for (const body of [
      { name: 'too deep', type: 'dynamic', rules: deep(6) },
      { rules: deep(6) },
    ]) {
      const url = 'name' in body ? SEGMENTS : `${SEGMENTS}/preview`;
      const res = await s.http.post(url, body).expect(422);
      expect(res.body.code).toBe('E_VALIDATION_ERROR');
      expect(res.body.errors).toEqual([
        {
          field: 'rules' + '.conditions.1'.repeat(5),
          rule: 'max',
          message: expect.any(String),
        },
      ]);
    }
  });

  it('accepts 100 conditions and refuses 101 naming the 101st', async () => {
    const cond = { field: 'displayName', operator: 'isNotEmpty' };
    const hundred = {
      operator: 'and',
      conditions: [
        { operator: 'or', conditions: Array.from({ length: 50 }, () => cond) },
        { operator: 'and', conditions: Array.from({ length: 50 }, () => cond) },
      ],
    };
    expect(await members(hundred)).toEqual([...EVERYONE].sort());
    hundred.conditions[1].conditions.push(cond);
    const res = await s.http
      .post(SEGMENTS, { name: 'too many', type: 'dynamic', rules: hundred })
      .expect(422);
    expect(res.body.errors).toEqual([
      { field: 'rules.conditions.1.conditions.50', rule: 'max', message: expect.any(String) },
    ]);
  });

  it('names the faulty node of a nested tree, one error per fault', async () => {
    const res = await s.http
      .post(`${SEGMENTS}/preview`, {
        rules: {
          operator: 'and',
          conditions: [
            { field: 'status', operator: 'equals', value: 'active' },
            {
              operator: 'or',
              conditions: [
                { field: 'createdAt', operator: 'withinLastDays', value: -3 },
                { field: 'tags', operator: 'contains', value: 'x' },
              ],
            },
            { field: 'shoeSize', operator: 'equals', value: '42' },
          ],
        },
      })
      .expect(422);
    expect(res.body.errors.map((e: { field: string; rule: string }) => [e.field, e.rule])).toEqual([
      ['rules.conditions.1.conditions.0.value', 'min'],
      ['rules.conditions.1.conditions.1.operator', 'enum'],
      ['rules.conditions.2.field', 'enum'],
    ]);
  });
});
