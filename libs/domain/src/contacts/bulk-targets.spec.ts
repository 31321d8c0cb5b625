// How a bulk create's rows become the contacts it writes to: lookups, duplicates, merge order.
import { channelMask, hashesToLookUp, phonesOf, planTargets, trimmedOrNull } from './bulk-targets';
import type { NewContactRow, SealedPhoneNumber } from './contacts-bulk.service';

function row(email: string | null, more: Partial<NewContactRow> = {}): NewContactRow {
  return {
    fields: {},
    emailAddress: email,
    email: email ? { enc: `enc:${email}`, hash: `h:${email}`, candidates: [`h:${email}`] } : null,
    phones: {},
    tags: [],
    ...more,
  };
}

const phone = (n: string): SealedPhoneNumber => ({
  enc: `enc:${n}`,
  hash: `h:${n}`,
  countryCode: 'US',
});

let next = 0;
const newId = () => `new-${++next}`;

describe('bulk targets', () => {
  beforeEach(() => (next = 0));

  it('gives new contacts time-ordered ids by default (UUID version 7), in row order', () => {
    const plan = planTargets([row('a@x.test'), row('b@x.test'), row(null)], new Map(), 'skip');
    const ids = plan.targets.map((t) => t.contactId);
    for (const id of ids)
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(ids).size).toBe(3);
    // Ids of one process increase even within a millisecond (uuid's monotonic counter).
    expect([...ids].sort()).toEqual(ids);
  });

  it("looks up every key's index of every row with an email, each once", () => {
    const rotated = row('old@x.test');
    rotated.email!.candidates = ['h:old@x.test', 'h2:old@x.test'];
    const rows = [rotated, row(null), row('a@x.test'), row('a@x.test')];
    expect(hashesToLookUp(rows)).toEqual(['h:old@x.test', 'h2:old@x.test', 'h:a@x.test']);
  });

  it('a row whose email an existing contact owns (under any key) goes to it, once however many rows name it', () => {
    // Sealed under a newer key: its current index is not the stored one, a candidate is.
    const rotated = row('old@x.test');
    rotated.email = { ...rotated.email!, hash: 'h2:old@x.test' };
    rotated.email.candidates = ['h2:old@x.test', 'h:old@x.test'];
    const plan = planTargets(
      [rotated, row('new@x.test'), row('old@x.test'), row(null)],
      new Map([['h:old@x.test', 'c-old']]),
      'skip',
      newId,
    );
    expect(plan).toMatchObject({ newCount: 2, duplicateCount: 2 });
    expect(plan.targets.map((t) => [t.contactId, t.isNew])).toEqual([
      ['c-old', false],
      ['new-1', true],
      ['new-2', true],
    ]);
    // Skip mode: nothing of a duplicate is written but its tags and lists.
    expect(plan.targets[0].fields).toBeNull();
  });

  it("update mode merges a duplicate's non-empty values in row order, custom fields key by key, and gathers its numbers", () => {
    const plan = planTargets(
      [
        row('dup@x.test', {
          fields: { firstName: 'First', notes: 'kept', customFields: { a: '1', b: '1' } },
          phones: { sms: phone('+1') },
          tags: ['one'],
        }),
        row('dup@x.test', {
          fields: { firstName: 'Second', lastName: null, customFields: { b: '2' } },
          phones: { sms: phone('+2') },
          tags: ['two'],
        }),
        row('dup@x.test', {
          fields: { lastName: 'Last', status: undefined },
          phones: { sms: phone('+1') },
        }),
      ],
      new Map(),
      'update',
      newId,
    );
    expect(plan).toMatchObject({ newCount: 1, duplicateCount: 2 });
    const [t] = plan.targets;
    expect(t.fields).toEqual({
      firstName: 'Second',
      lastName: 'Last',
      notes: 'kept',
      customFields: { a: '1', b: '2' },
    });
    expect([...t.tags]).toEqual(['one', 'two']);
    expect(phonesOf(plan.targets, 'sms').map((p) => [p.hash, p.first])).toEqual([
      ['h:+1', true],
      ['h:+2', false],
    ]);
  });

  it("skip mode keeps the first row's values and numbers, and still gathers the tags", () => {
    const plan = planTargets(
      [
        row('dup@x.test', { fields: { firstName: 'First' }, tags: ['a'] }),
        row('dup@x.test', {
          fields: { firstName: 'Second' },
          phones: { sms: phone('+1') },
          tags: ['b'],
        }),
      ],
      new Map(),
      'skip',
      newId,
    );
    const [t] = plan.targets;
    expect(t.fields).toEqual({ firstName: 'First' });
    expect(phonesOf(plan.targets, 'sms')).toEqual([]);
    expect([...t.tags]).toEqual(['a', 'b']);
  });

  it('rows without an email are always new contacts', () => {
    const plan = planTargets([row(null), row(null)], new Map(), 'update', newId);
    expect(plan).toMatchObject({ newCount: 2, duplicateCount: 0 });
  });

  it("a new contact's channel mask: its sealed email and numbers, and its records' channels", () => {
    const [sealed, records] = planTargets(
      [
        row('a@x.test', { phones: { whatsapp: phone('+1'), telegram: phone('+1') } }),
        row(null, { records: { push: [{ deviceToken: 't', platform: 'ios' }], sms: [] } }),
      ],
      new Map(),
      'skip',
      newId,
    ).targets;
    expect(channelMask(sealed)).toBe(1 | 4 | 8);
    expect(channelMask(records)).toBe(32);
  });

  it('a stored name is trimmed, and null when blank', () => {
    expect(trimmedOrNull('  Ann ')).toBe('Ann');
    expect(trimmedOrNull('   ')).toBeNull();
    expect(trimmedOrNull(undefined)).toBeNull();
  });
});
