import { ValidationFailedError } from '../errors/domain-errors';
import { checkRow, compileMappings, suggestMappings } from './import-fields';

const HEADERS = ['Email', 'First', 'Phone', 'Telegram', 'Tags', 'Tier', 'Status'];
const ALL = [
  { csvHeader: 'Email', serviceField: 'email' },
  { csvHeader: 'First', serviceField: 'firstName' },
  { csvHeader: 'Phone', serviceField: 'phoneNumber' },
  { csvHeader: 'Telegram', serviceField: 'telegramUsername' },
  { csvHeader: 'Tags', serviceField: 'tags' },
  { csvHeader: 'Tier', serviceField: 'customFields.tier' },
  { csvHeader: 'Status', serviceField: 'status' },
];

function errorsOf(fn: () => unknown) {
  try {
    fn();
  } catch (err) {
    if (err instanceof ValidationFailedError) return err.errors.map((e) => [e.field, e.rule]);
    throw err;
  }
  return [];
}

describe('import fields', () => {
  it('compiles a mapping to column indexes, ignoring `ignore`', () => {
    const m = compileMappings(
      [...ALL.slice(0, 6), { csvHeader: 'Status', serviceField: 'ignore' }],
      HEADERS,
    );
    expect(m.headerCount).toBe(7);
    expect(m.columns.map((c) => [c.index, c.field, c.key])).toEqual([
      [0, 'email', undefined],
      [1, 'firstName', undefined],
      [2, 'phoneNumber', undefined],
      [3, 'telegramUsername', undefined],
      [4, 'tags', undefined],
      [5, 'custom', 'tier'],
    ]);
  });

  it('names every bad mapping by its path', () => {
    expect(
      errorsOf(() =>
        compileMappings(
          [
            { csvHeader: 'Email', serviceField: 'email' },
            { csvHeader: 'Nope', serviceField: 'firstName' },
            { csvHeader: 'First', serviceField: 'shoeSize' },
            { csvHeader: 'Phone', serviceField: 'email' },
            { csvHeader: 'Tier', serviceField: 'customFields.' },
          ],
          HEADERS,
        ),
      ),
    ).toEqual([
      ['fieldMappings.1.csvHeader', 'enum'],
      ['fieldMappings.2.serviceField', 'enum'],
      ['fieldMappings.3.serviceField', 'unique'],
      ['fieldMappings.4.serviceField', 'enum'],
    ]);
  });

  it('suggests fields from header names, custom fields for the rest', () => {
    expect(
      suggestMappings(['E-mail', 'Given Name', 'Surname', 'Cell', 'Favourite colour', 'email', '']),
    ).toEqual([
      { csvHeader: 'E-mail', serviceField: 'email' },
      { csvHeader: 'Given Name', serviceField: 'firstName' },
      { csvHeader: 'Surname', serviceField: 'lastName' },
      { csvHeader: 'Cell', serviceField: 'phoneNumber' },
      { csvHeader: 'Favourite colour', serviceField: 'customFields.favouriteColour' },
      { csvHeader: 'email', serviceField: 'ignore' },
      { csvHeader: '', serviceField: 'ignore' },
    ]);
  });

  describe('checkRow', () => {
    const m = compileMappings(ALL, HEADERS);

    it('returns typed values: phone in E.164 with its country, tags split, custom fields', () => {
      const r = checkRow(
        [' a@b.co ', 'Ann', '+44 20 7946 0958', '@ann', 'x; y ;x', 'gold', 'Archived'],
        m,
      );
      expect(r).toEqual({
        ok: true,
        values: expect.objectContaining({
          email: 'a@b.co',
          firstName: 'Ann',
          phone: { e164: '+442079460958', countryCode: 'GB', canonical: true },
          telegramUsername: '@ann',
          tags: ['x', 'y', 'x'],
          customFields: { tier: 'gold' },
          status: 'archived',
        }),
      });
    });

    it('joins every problem of a row into one message naming the fields', () => {
      const r = checkRow(['nope', '', 'abc', '', '', '', 'gone'], m);
      expect(r.ok).toBe(false);
      if (!r.ok) {
        expect(r.error).toMatch(/^email must be an email; phoneNumber must be .*; status must be/);
      }
    });

    it('refuses an empty row, a wrong column count, a Telegram handle without a number', () => {
      expect(checkRow(['', '', '', '', '', '', ''], m)).toEqual({
        ok: false,
        error: 'row has no value in any mapped column',
      });
      expect(checkRow(['a@b.co'], m)).toEqual({
        ok: false,
        error: 'row has 1 columns, the header has 7',
      });
      const tg = checkRow(['a@b.co', '', '', '@x', '', '', ''], m);
      expect(tg.ok).toBe(false);
    });

    it('refuses a mapped cell with a NUL byte or bytes that were not UTF-8, naming the field', () => {
      expect(checkRow(['a@b.co', 'A\0n', '', '', '', '\uFFFD', ''], m, [5])).toEqual({
        ok: false,
        error: 'firstName contains a NUL byte; customFields.tier is not valid UTF-8 text',
      });
      // A real U+FFFD (not listed as undecodable) is text like any other.
      expect(checkRow(['a@b.co', 'A\uFFFD', '', '', '', '', ''], m).ok).toBe(true);
    });
  });
});
