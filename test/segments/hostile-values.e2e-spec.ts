// Hostile values match literally and change nothing; a hostile field name
// is a 422 naming the path.
import { INestApplication } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { createTestApp } from '../support/app';
import { createSession, Session } from '../support/session';
import { seedContacts, SeedContact, Seeded } from './seed';

const SEGMENTS = '/api/v1/user/contact-segments';
const DROP = `'; drop table contacts; --`;

const PEOPLE: SeedContact[] = [
  { key: 'sql', firstName: DROP, tags: [`'; drop table contact_tags; --`] },
  {
    key: 'percent',
    firstName: '100% sure',
    customFields: { note: `'); DELETE FROM contacts; --` },
  },
  { key: 'underscore', firstName: 'a_b' },
  { key: 'backslash', firstName: String.raw`back\slash` },
  { key: 'mixed', firstName: String.raw`50\%_off` },
  { key: 'unicode', firstName: 'Zoë 日本 🎉', tags: ['ünïcödé'] },
  { key: 'plain', firstName: 'axb 1000 backslash' },
].map((p, i) => ({ ...p, createdAt: `2025-01-0${i + 1}T00:00:00Z` }));

describe('Segment rules: hostile values and field names', () => {
  let app: INestApplication;
  let s: Session;
  let seeded: Seeded;
  let ds: DataSource;

  beforeAll(async () => {
    app = await createTestApp();
    ds = app.get(DataSource);
    s = await createSession(app);
    seeded = await seedContacts(app, s.org.id, PEOPLE);
  });
  afterAll(() => app.close());

  async function snapshot() {
    const [row] = await ds.query<
      { contacts: number; tags: number; total: number; tables: number }[]
    >(
      `SELECT (SELECT count(*)::int FROM contacts WHERE organization_id = $1) AS contacts,
              (SELECT count(*)::int FROM contact_tags WHERE organization_id = $1) AS tags,
              (SELECT count(*)::int FROM contacts) AS total,
              (SELECT count(*)::int FROM pg_tables
                WHERE schemaname = 'public'
                  AND tablename IN ('contacts', 'contact_tags', 'contact_segments')) AS tables`,
      [s.org.id],
    );
    return row;
  }

  async function members(field: string, operator: string, value: unknown): Promise<string[]> {
    const res = await s.http.post(`${SEGMENTS}/preview`, {
      rules: { operator: 'and', conditions: [{ field, operator, value }] },
    });
    expect(res.status).toBe(200);
    return (res.body.data.sample as { id: string }[]).map((c) => seeded.keys[c.id]).sort();
  }

  it.each([
    ['firstName', 'equals', DROP, ['sql']],
    ['firstName', 'contains', `; drop table`, ['sql']],
    ['firstName', 'startsWith', `'`, ['sql']],
    [
      'firstName',
      'notEquals',
      DROP,
      ['backslash', 'mixed', 'percent', 'plain', 'underscore', 'unicode'],
    ],
    ['firstName', 'contains', '%', ['mixed', 'percent']],
    ['firstName', 'endsWith', '%', []],
    ['firstName', 'contains', '_', ['mixed', 'underscore']],
    ['firstName', 'equals', 'a_b', ['underscore']],
    ['firstName', 'equals', 'axb', []],
    ['firstName', 'contains', '\\', ['backslash', 'mixed']],
    ['firstName', 'contains', String.raw`k\s`, ['backslash']],
    ['firstName', 'contains', String.raw`\%_`, ['mixed']],
    ['firstName', 'startsWith', String.raw`50\%`, ['mixed']],
    ['firstName', 'contains', 'ë 日本', ['unicode']],
    ['firstName', 'endsWith', '🎉', ['unicode']],
    ['firstName', 'equals', 'ZOË 日本 🎉', ['unicode']],
    ['language', 'in', [DROP, `x'); --`], []],
    ['tags', 'hasAny', [`'; DROP TABLE contact_tags; --`], ['sql']],
    ['tags', 'hasAll', ['ÜNÏCÖDÉ'], ['unicode']],
    ['customFields.note', 'equals', `'); delete from contacts; --`, ['percent']],
    ['customFields.note', 'contains', `'); DELETE`, ['percent']],
    ['customFields.note', 'gt', 0, []],
  ])('%s %s %j matches literally', async (field, operator, value, expected) => {
    const before = await snapshot();
    expect(await members(field, operator, value)).toEqual(expected);
    expect(await snapshot()).toEqual(before);
  });

  it('stores a hostile rule in a segment and reads its contacts back unchanged', async () => {
    const before = await snapshot();
    const rules = {
      operator: 'or',
      conditions: [
        { field: 'firstName', operator: 'equals', value: DROP },
        { field: 'firstName', operator: 'contains', value: '%' },
      ],
    };
    const created = await s.http
      .post(SEGMENTS, { name: DROP, description: DROP, type: 'dynamic', rules })
      .expect(201);
    expect(created.body.data).toMatchObject({ name: DROP, description: DROP, rules });
    const page = await s.http.get(`${SEGMENTS}/${created.body.data.id}/contacts`).expect(200);
    expect((page.body.data as { id: string }[]).map((c) => seeded.keys[c.id]).sort()).toEqual([
      'mixed',
      'percent',
      'sql',
    ]);
    expect(page.body.data.find((c: { id: string }) => c.id === seeded.ids.sql).firstName).toBe(
      DROP,
    );
    expect(await snapshot()).toEqual(before);
  });

  it.each([
    'first_name; DROP TABLE contacts; --',
    'firstName) OR (1=1',
    'customFields.x; drop table contacts',
    "customFields.a'b",
    'customFields.a->>b',
    'customFields.' + 'k'.repeat(65),
    'c.first_name',
    'FIRSTNAME',
    '__proto__',
    'toString',
  ])('refuses the field name %j with a 422 naming its path', async (field) => {
    const before = await snapshot();
    const res = await s.http
      .post(`${SEGMENTS}/preview`, {
        rules: {
          operator: 'and',
          conditions: [
            { field: 'status', operator: 'isEmpty' },
            {
              operator: 'or',
              conditions: [
                { field: 'lastName', operator: 'isEmpty' },
                { field, operator: 'equals', value: 'x' },
              ],
            },
          ],
        },
      })
      .expect(422);
    // status/isEmpty is not an operator of status: reported too, one fault per node.
    expect(res.body.errors.map((e: { field: string; rule: string }) => [e.field, e.rule])).toEqual([
      ['rules.conditions.0.operator', 'enum'],
      ['rules.conditions.1.conditions.1.field', 'enum'],
    ]);
    expect(await snapshot()).toEqual(before);
  });

  it('refuses a hostile operator and a NUL byte without reaching the database', async () => {
    const res = await s.http
      .post(`${SEGMENTS}/preview`, {
        rules: {
          operator: 'and; drop table contacts',
          conditions: [
            { field: 'firstName', operator: "equals' OR '1'='1", value: 'x' },
            { field: 'notes', operator: 'contains', value: 'ab' },
          ],
        },
      })
      .expect(422);
    expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual([
      'rules.operator',
      'rules.conditions.0.operator',
    ]);
    // A NUL anywhere in a body is refused before validation (PostgreSQL cannot store it), named.
    const nul = await s.http
      .post(`${SEGMENTS}/preview`, {
        rules: {
          operator: 'and',
          conditions: [
            { field: 'firstName', operator: 'equals', value: 'x' },
            { field: 'notes', operator: 'contains', value: 'a\u0000b' },
          ],
        },
      })
      .expect(422);
    expect(nul.body.errors.map((e: { field: string }) => e.field)).toEqual([
      'rules.conditions.1.value',
    ]);
  });
});
