// SegmentsService's rules over a fake repository: validation, membership, preview, and the
// batches of contact ids other areas receive.
import type { DataSource } from 'typeorm';
import { Clock } from '../common/clock';
import { asOrgId, OrgId } from '../common/org-id';
import type { PageRequest } from '../common/pagination';
import type { ContactsService } from '../contacts/contacts.service';
import { ConflictError, NotFoundError, ValidationFailedError } from '../errors/domain-errors';
import { ContactSegment } from './contact-segment.entity';
import type { ContactSelection, WalkKey, WalkPage } from './contact-selection';
import { rulesToJson } from './segment-rules';
import { parseRules } from './segment-rules.parser';
import type { NewSegment, SegmentRepository } from './segment.repository';
import { PREVIEW_SAMPLE_SIZE, SegmentsService } from './segments.service';

const ORG = asOrgId('00000000-0000-4000-8000-0000000000a1');
const OTHER = asOrgId('00000000-0000-4000-8000-0000000000b2');
const C1 = '11111111-1111-4111-8111-111111111111';
const C2 = '22222222-2222-4222-8222-222222222222';
const C3 = '33333333-3333-4333-8333-333333333333';
const RULES = {
  operator: 'and',
  conditions: [{ field: 'status', operator: 'equals', value: 'active' }],
};

class FakeClock extends Clock {
  t = new Date('2026-01-01T00:00:00Z');
  now(): Date {
    return new Date(this.t);
  }
}

/** Segments, members and contacts in memory; selection queries answer what a test scripts. */
class FakeSegments {
  segments = new Map<string, ContactSegment>();
  members = new Map<string, Set<string>>();
  contacts = new Map<OrgId, Set<string>>([[ORG, new Set([C1, C2, C3])]]);
  calls: { method: string; orgId: OrgId; args: unknown[] }[] = [];
  count = 0;
  pageIds: string[] = [];
  walkPages: WalkPage[] = [];
  private seq = 0;

  private log(method: string, orgId: OrgId, ...args: unknown[]) {
    this.calls.push({ method, orgId, args });
  }
  called(method: string) {
    return this.calls.filter((c) => c.method === method);
  }

  insert(orgId: OrgId, s: NewSegment): Promise<string> {
    this.log('insert', orgId, s);
    const id = `00000000-0000-4000-8000-${String(++this.seq).padStart(12, '0')}`;
    this.segments.set(
      id,
      Object.assign(new ContactSegment(), {
        id,
        organizationId: orgId,
        ...s,
        contactCount: s.type === 'static' ? 0 : null,
      }),
    );
    return Promise.resolve(id);
  }
  find(orgId: OrgId, id: string): Promise<ContactSegment | null> {
    const s = this.segments.get(id);
    return Promise.resolve(s && s.organizationId === orgId ? { ...s } : null);
  }
  list(orgId: OrgId): Promise<[ContactSegment[], number]> {
    const rows = [...this.segments.values()].filter((s) => s.organizationId === orgId);
    return Promise.resolve([rows.map((s) => ({ ...s })), rows.length]);
  }
  update(orgId: OrgId, id: string, patch: Partial<ContactSegment>): Promise<void> {
    this.log('update', orgId, id, patch);
    Object.assign(this.segments.get(id)!, patch);
    return Promise.resolve();
  }
  delete(orgId: OrgId, id: string): Promise<boolean> {
    const s = this.segments.get(id);
    if (!s || s.organizationId !== orgId) return Promise.resolve(false);
    this.segments.delete(id);
    return Promise.resolve(true);
  }
  countExistingContacts(orgId: OrgId, ids: string[]): Promise<number> {
    const own = this.contacts.get(orgId) ?? new Set();
    return Promise.resolve(ids.filter((id) => own.has(id)).length);
  }
  addMembers(orgId: OrgId, segmentId: string, ids: string[]): Promise<void> {
    this.log('addMembers', orgId, segmentId, ids);
    const set = this.members.get(segmentId) ?? new Set();
    ids.forEach((id) => set.add(id));
    this.members.set(segmentId, set);
    this.segments.get(segmentId)!.contactCount = set.size;
    return Promise.resolve();
  }
  removeMembers(orgId: OrgId, segmentId: string, ids: string[]): Promise<void> {
    this.log('removeMembers', orgId, segmentId, ids);
    const set = this.members.get(segmentId) ?? new Set();
    ids.forEach((id) => set.delete(id));
    this.segments.get(segmentId)!.contactCount = set.size;
    return Promise.resolve();
  }
  countContacts(orgId: OrgId, sel: ContactSelection): Promise<number> {
    this.log('countContacts', orgId, sel);
    return Promise.resolve(this.count);
  }
  pageContactIds(orgId: OrgId, sel: ContactSelection, page: PageRequest): Promise<string[]> {
    this.log('pageContactIds', orgId, sel, page);
    return Promise.resolve(this.pageIds);
  }
  walkContactIds(
    orgId: OrgId,
    sel: ContactSelection,
    after: WalkKey | null,
    limit: number,
  ): Promise<WalkPage> {
    this.log('walkContactIds', orgId, sel, after, limit);
    return Promise.resolve(this.walkPages.shift() ?? { ids: [], next: null });
  }
}

function setup() {
  const repo = new FakeSegments();
  const clock = new FakeClock();
  const views = {
    loadViews: jest.fn((_org: OrgId, ids: string[]) => Promise.resolve(ids.map((id) => ({ id })))),
  };
  const ds = { transaction: <T>(work: (em: unknown) => Promise<T>) => work({}) };
  const svc = new SegmentsService(
    ds as unknown as DataSource,
    repo as unknown as SegmentRepository,
    clock,
    views as unknown as ContactsService,
  );
  return { repo, clock, views, svc };
}

async function validationFaults(p: Promise<unknown>) {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ValidationFailedError);
  return (err as ValidationFailedError).errors;
}

describe('SegmentsService: creating and editing', () => {
  it('refuses contactIds on a dynamic segment and rules on a static one, naming the field', async () => {
    const { repo, svc } = setup();
    const onDynamic = svc.create(ORG, {
      name: 'd',
      type: 'dynamic',
      rules: RULES,
      contactIds: [C1],
    });
    expect(await validationFaults(onDynamic)).toEqual([
      { field: 'contactIds', rule: 'unknown', message: expect.any(String) },
    ]);
    const onStatic = svc.create(ORG, { name: 's', type: 'static', rules: RULES });
    expect(await validationFaults(onStatic)).toEqual([
      { field: 'rules', rule: 'unknown', message: expect.any(String) },
    ]);
    expect(repo.called('insert')).toHaveLength(0);
  });

  it('refuses invalid rules with the fault of each node and stores nothing', async () => {
    const { repo, svc } = setup();
    const bad = {
      operator: 'and',
      conditions: [{ field: 'shoeSize', operator: 'equals', value: 1 }],
    };
    const faults = await validationFaults(
      svc.create(ORG, { name: 'd', type: 'dynamic', rules: bad }),
    );
    expect(faults[0].field).toBe('rules.conditions.0.field');
    expect(repo.called('insert')).toHaveLength(0);
  });

  it('stores the normalised rule tree of a dynamic segment under the organization', async () => {
    const { repo, svc } = setup();
    const created = await svc.create(ORG, { name: 'Active', type: 'dynamic', rules: RULES });
    expect(created).toMatchObject({ organizationId: ORG, type: 'dynamic', description: null });
    expect(created.rules).toEqual(rulesToJson(parseRules(RULES)));
    expect(repo.called('insert')[0].orgId).toBe(ORG);
  });

  it('adds the given contacts of a static segment once each, whatever their case', async () => {
    const { repo, svc } = setup();
    const created = await svc.create(ORG, {
      name: 'VIP',
      type: 'static',
      contactIds: [C1, C1.toUpperCase(), C2],
    });
    expect(repo.called('addMembers')[0].args).toEqual([created.id, [C1, C2]]);
    expect(created.contactCount).toBe(2);
  });

  it("404s a static segment's contact that is not the organization's and adds none", async () => {
    const { repo, svc } = setup();
    repo.contacts.set(OTHER, new Set([C3]));
    repo.contacts.set(ORG, new Set([C1]));
    await expect(
      svc.create(ORG, { name: 'VIP', type: 'static', contactIds: [C1, C3] }),
    ).rejects.toThrow(new NotFoundError('Contact'));
    expect(repo.called('addMembers')).toHaveLength(0);
  });

  it('changes rules only on a dynamic segment', async () => {
    const { repo, svc } = setup();
    const st = await svc.create(ORG, { name: 's', type: 'static' });
    await expect(svc.update(ORG, st.id, { rules: RULES })).rejects.toBeInstanceOf(ConflictError);
    const dyn = await svc.create(ORG, { name: 'd', type: 'dynamic', rules: RULES });
    const other = {
      operator: 'or',
      conditions: [{ field: 'language', operator: 'in', value: ['EN'] }],
    };
    const updated = await svc.update(ORG, dyn.id, { name: 'renamed', rules: other });
    expect(updated.name).toBe('renamed');
    expect(updated.rules).toEqual(rulesToJson(parseRules(other)));
    expect(repo.called('update')).toHaveLength(1);
  });

  it("answers 404 for another organization's segment on get, update and remove", async () => {
    const { svc } = setup();
    const mine = await svc.create(ORG, { name: 'm', type: 'static' });
    const missing = new NotFoundError('Segment');
    await expect(svc.get(OTHER, mine.id)).rejects.toThrow(missing);
    await expect(svc.update(OTHER, mine.id, { name: 'x' })).rejects.toThrow(missing);
    await expect(svc.remove(OTHER, mine.id)).rejects.toThrow(missing);
    await expect(svc.get(ORG, mine.id)).resolves.toMatchObject({ name: 'm' });
  });
});

describe('SegmentsService: static membership', () => {
  it('changes members of a static segment only (dynamic: 409, unknown: 404)', async () => {
    const { repo, svc } = setup();
    const dyn = await svc.create(ORG, { name: 'd', type: 'dynamic', rules: RULES });
    await expect(svc.addMembers(ORG, dyn.id, [C1])).rejects.toBeInstanceOf(ConflictError);
    await expect(svc.removeMembers(ORG, dyn.id, [C1])).rejects.toBeInstanceOf(ConflictError);
    const st = await svc.create(ORG, { name: 's', type: 'static' });
    await expect(svc.addMembers(OTHER, st.id, [C1])).rejects.toThrow(new NotFoundError('Segment'));
    expect(repo.called('addMembers')).toHaveLength(0);
  });

  it('adds and removes members, the count following', async () => {
    const { repo, svc } = setup();
    const st = await svc.create(ORG, { name: 's', type: 'static' });
    expect((await svc.addMembers(ORG, st.id, [C1, C2, C2])).contactCount).toBe(2);
    expect((await svc.removeMembers(ORG, st.id, [C2.toUpperCase()])).contactCount).toBe(1);
    expect(repo.called('removeMembers')[0].args).toEqual([st.id, [C2]]);
  });

  it("refuses, with 404 and no change, a contact that is not the organization's", async () => {
    const { repo, svc } = setup();
    const st = await svc.create(ORG, { name: 's', type: 'static' });
    const stranger = '44444444-4444-4444-8444-444444444444';
    await expect(svc.addMembers(ORG, st.id, [C1, stranger])).rejects.toThrow(
      new NotFoundError('Contact'),
    );
    await expect(svc.removeMembers(ORG, st.id, [stranger])).rejects.toThrow(
      new NotFoundError('Contact'),
    );
    expect(repo.called('addMembers')).toHaveLength(0);
    expect(repo.called('removeMembers')).toHaveLength(0);
  });
});

describe('SegmentsService: preview and contacts', () => {
  it('previews the count and the first contacts of parsed rules evaluated at the clock', async () => {
    const { repo, clock, views, svc } = setup();
    repo.count = 42;
    repo.pageIds = [C2, C1];
    const preview = await svc.preview(ORG, RULES);
    expect(preview).toEqual({ count: 42, sample: [{ id: C2 }, { id: C1 }] });
    const selection = { kind: 'rules', rules: parseRules(RULES), now: clock.t };
    expect(repo.called('countContacts')[0]).toEqual({
      method: 'countContacts',
      orgId: ORG,
      args: [selection],
    });
    expect(repo.called('pageContactIds')[0].args).toEqual([
      selection,
      { page: 1, limit: PREVIEW_SAMPLE_SIZE },
    ]);
    expect(views.loadViews).toHaveBeenCalledWith(ORG, [C2, C1], expect.anything());
  });

  it('refuses invalid preview rules before any query', async () => {
    const { repo, svc } = setup();
    await validationFaults(svc.preview(ORG, { operator: 'xor', conditions: [] }));
    expect(repo.calls).toHaveLength(0);
  });

  it("counts a static segment's contacts from its stored count, a dynamic one's by query", async () => {
    const { repo, svc } = setup();
    const st = await svc.create(ORG, { name: 's', type: 'static', contactIds: [C1, C2] });
    repo.pageIds = [C2];
    const page = await svc.contacts(ORG, st.id, { page: 1, limit: 1 });
    expect(page.total).toBe(2);
    expect(repo.called('countContacts')).toHaveLength(0);
    expect(repo.called('pageContactIds')[0].args[0]).toEqual({ kind: 'members', segmentId: st.id });

    const dyn = await svc.create(ORG, { name: 'd', type: 'dynamic', rules: RULES });
    repo.count = 7;
    expect((await svc.contacts(ORG, dyn.id, { page: 1, limit: 1 })).total).toBe(7);
    expect((await svc.get(ORG, dyn.id, true)).contactCount).toBe(7);
    expect(
      (await svc.list(ORG, { page: 1, limit: 20 }, true)).items.map((s) => s.contactCount),
    ).toEqual([2, 7]);
  });
});

describe('SegmentsService.contactIdBatches', () => {
  const collect = async (batches: AsyncIterable<string[]>) => {
    const out: string[][] = [];
    for await (const b of batches) out.push(b);
    return out;
  };

  it('walks page after page from the key each page ends on, skipping an empty last page', async () => {
    const { repo, svc } = setup();
    const st = await svc.create(ORG, { name: 's', type: 'static' });
    repo.walkPages = [
      { ids: [C1, C2], next: { id: C2, createdAt: null } },
      { ids: [C3], next: { id: C3, createdAt: null } },
      { ids: [], next: null },
    ];
    expect(await collect(await svc.contactIdBatches(ORG, st.id, 2))).toEqual([[C1, C2], [C3]]);
    const walks = repo.called('walkContactIds');
    expect(walks.map((w) => w.orgId)).toEqual([ORG, ORG, ORG]);
    expect(walks.map((w) => w.args)).toEqual([
      [{ kind: 'members', segmentId: st.id }, null, 2],
      [{ kind: 'members', segmentId: st.id }, { id: C2, createdAt: null }, 2],
      [{ kind: 'members', segmentId: st.id }, { id: C3, createdAt: null }, 2],
    ]);
  });

  it('evaluates dynamic rules at the instant of the call for every batch', async () => {
    const { repo, clock, svc } = setup();
    const dyn = await svc.create(ORG, { name: 'd', type: 'dynamic', rules: RULES });
    const start = new Date(clock.t);
    const key = { id: C1, createdAt: '2025-01-01 00:00:00.123456+00' };
    repo.walkPages = [
      { ids: [C1], next: key },
      { ids: [C2], next: null },
    ];
    const batches = await svc.contactIdBatches(ORG, dyn.id, 1);
    clock.t = new Date('2026-06-01T00:00:00Z');
    expect(await collect(batches)).toEqual([[C1], [C2]]);
    const walks = repo.called('walkContactIds');
    expect(walks).toHaveLength(2);
    for (const w of walks) {
      expect(w.args[0]).toEqual({ kind: 'rules', rules: parseRules(RULES), now: start });
    }
    expect(walks[1].args[1]).toEqual(key);
  });

  it("404s another organization's segment before walking anything", async () => {
    const { repo, svc } = setup();
    const st = await svc.create(ORG, { name: 's', type: 'static' });
    await expect(svc.contactIdBatches(OTHER, st.id)).rejects.toThrow(new NotFoundError('Segment'));
    expect(repo.called('walkContactIds')).toHaveLength(0);
  });
});
