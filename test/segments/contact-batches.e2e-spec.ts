// A segment's contacts handed to other areas (e.g. a campaign audience) as batches of ids:
// SegmentsService.contactIdBatches walks static members by id and dynamic rules by createdAt,
// each contact once, never another organization's.
import { INestApplication } from '@nestjs/common';
import { asOrgId, OrgId, SegmentsService } from '@app/domain';
import { createTestApp } from '../support/app';
import { createSession, Session } from '../support/session';
import { seedContacts, SeedContact, Seeded } from './seed';

const SEGMENTS = '/api/v1/user/contact-segments';
/** Four contacts share one createdAt, to the microsecond: the walk's key must tell them apart. */
const TIE = '2025-02-02T02:02:02.123456Z';

const pats: SeedContact[] = [
  { key: 'p1', firstName: 'Pat', createdAt: '2025-01-01T00:00:00Z' },
  { key: 'p2', firstName: 'Pat', createdAt: TIE },
  { key: 'p3', firstName: 'Pat', createdAt: TIE },
  { key: 'p4', firstName: 'Pat', createdAt: TIE },
  { key: 'p5', firstName: 'Pat', createdAt: TIE },
  { key: 'p6', firstName: 'Pat', createdAt: '2025-02-02T02:02:02.123457Z' },
  { key: 'p7', firstName: 'Pat', createdAt: '2025-03-01T00:00:00Z' },
  { key: 'other', firstName: 'Sam', createdAt: '2025-02-01T00:00:00Z' },
];
const PAT_RULES = {
  operator: 'and',
  conditions: [{ field: 'firstName', operator: 'equals', value: 'pat' }],
};

describe('SegmentsService.contactIdBatches', () => {
  let app: INestApplication;
  let svc: SegmentsService;
  let s: Session;
  let orgId: OrgId;
  let seeded: Seeded;
  let dynamicId: string;
  let staticId: string;

  const batchesOf = async (org: OrgId, id: string, size: number): Promise<string[][]> => {
    const out: string[][] = [];
    for await (const batch of await svc.contactIdBatches(org, id, size)) out.push(batch);
    return out;
  };
  const keys = (batches: string[][]) => batches.map((b) => b.map((id) => seeded.keys[id]));

  beforeAll(async () => {
    app = await createTestApp();
    svc = app.get(SegmentsService);
    s = await createSession(app);
    orgId = asOrgId(s.org.id);
    seeded = await seedContacts(app, s.org.id, pats);
    dynamicId = (
      await s.http.post(SEGMENTS, { name: 'pats', type: 'dynamic', rules: PAT_RULES }).expect(201)
    ).body.data.id;
    const members = ['p1', 'p3', 'p5', 'p7', 'other'].map((k) => seeded.ids[k]);
    staticId = (
      await s.http.post(SEGMENTS, { name: 'some', type: 'static', contactIds: members }).expect(201)
    ).body.data.id;
  });

  afterAll(async () => {
    await app.close();
  });

  it("walks a dynamic segment's contacts newest first, ties on createdAt broken by id", async () => {
    const tied = ['p2', 'p3', 'p4', 'p5'].sort((a, b) => (seeded.ids[a] < seeded.ids[b] ? 1 : -1));
    const all = ['p7', 'p6', ...tied, 'p1'];
    expect(keys(await batchesOf(orgId, dynamicId, 2))).toEqual([
      all.slice(0, 2),
      all.slice(2, 4),
      all.slice(4, 6),
      all.slice(6),
    ]);
    // A walk that ends on a full batch hands out no empty one.
    expect(keys(await batchesOf(orgId, dynamicId, 7))).toEqual([all]);
    expect(keys(await batchesOf(orgId, dynamicId, 100))).toEqual([all]);
  });

  it("walks a static segment's members in id order", async () => {
    const members = ['p1', 'p3', 'p5', 'p7', 'other'].sort((a, b) =>
      seeded.ids[a] < seeded.ids[b] ? -1 : 1,
    );
    expect(keys(await batchesOf(orgId, staticId, 2))).toEqual([
      members.slice(0, 2),
      members.slice(2, 4),
      members.slice(4),
    ]);
    expect(keys(await batchesOf(orgId, staticId, 5))).toEqual([members]);
  });

  it('hands out nothing for a segment with no contacts', async () => {
    const empty = (
      await s.http.post(SEGMENTS, { name: 'none', type: 'static', contactIds: [] }).expect(201)
    ).body.data.id;
    expect(await batchesOf(orgId, empty, 2)).toEqual([]);
  });

  it("never hands out another organization's contacts, and 404s its segments", async () => {
    const other = await createSession(app);
    const otherOrg = asOrgId(other.org.id);
    await seedContacts(app, other.org.id, [
      { key: 'p1', firstName: 'Pat', createdAt: '2030-01-01T00:00:00Z' },
    ]);
    const walked = (await batchesOf(orgId, dynamicId, 100)).flat();
    expect(walked.every((id) => seeded.keys[id])).toBe(true);
    expect(walked).toHaveLength(7);
    await expect(batchesOf(otherOrg, dynamicId, 2)).rejects.toThrow('Segment not found');
    await expect(batchesOf(otherOrg, staticId, 2)).rejects.toThrow('Segment not found');
  });
});
