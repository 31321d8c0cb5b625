import { isoFromPgJsonTimestamp } from './json-instant';

/** The path it replaces: TypeORM's hydration (new Date(text)) then toISOString. */
const viaDate = (text: string) => new Date(text).toISOString();

describe(isoFromPgJsonTimestamp.name, () => {
  it.each([
    ['2024-01-01T00:00:00+00:00', '2024-01-01T00:00:00.000Z'],
    ['2024-01-01T00:00:00.5+00:00', '2024-01-01T00:00:00.500Z'],
    ['2024-01-01T00:00:00.12+00:00', '2024-01-01T00:00:00.120Z'],
    ['2024-01-01T00:00:00.123+00:00', '2024-01-01T00:00:00.123Z'],
    ['2024-01-01T00:00:00.1239+00:00', '2024-01-01T00:00:00.123Z'],
    ['2024-01-01T00:00:00.99999+00:00', '2024-01-01T00:00:00.999Z'],
    ['2024-01-01T00:00:00.000999+00:00', '2024-01-01T00:00:00.000Z'],
    ['2024-12-31T23:59:59.999999+00:00', '2024-12-31T23:59:59.999Z'],
    ['0001-01-01T00:00:00+00:00', '0001-01-01T00:00:00.000Z'],
    ['0099-03-01T12:00:00.01+00:00', '0099-03-01T12:00:00.010Z'],
    ['0999-12-31T23:59:59.999+00:00', '0999-12-31T23:59:59.999Z'],
    ['9999-12-31T23:59:59.999999+00:00', '9999-12-31T23:59:59.999Z'],
    ['2024-02-29T06:30:15.000001+00:00', '2024-02-29T06:30:15.000Z'],
  ])('%s prints as toISOString does (%s), milliseconds truncated', (text, iso) => {
    expect(isoFromPgJsonTimestamp(text)).toBe(iso);
    expect(viaDate(text)).toBe(iso);
  });

  it('agrees with the Date path on random instants with 0-6 fraction digits', () => {
    let seed = 42;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 5000; i++) {
      const ms = Math.floor(next() * 253402300799999); // 1970 .. 9999-12-31
      const base = new Date(i % 2 ? ms : -62135596800000 + ms).toISOString().slice(0, 19);
      const digits = Math.floor(next() * 7);
      const fraction = String(Math.floor(next() * 10 ** digits))
        .padStart(digits, '0')
        .replace(/0+$/, '');
      const text = `${base}${fraction ? `.${fraction}` : ''}+00:00`;
      expect(isoFromPgJsonTimestamp(text)).toBe(viaDate(text));
    }
  });

  it.each([
    ['another offset', '2024-01-01T01:00:00.5+01:00'],
    ['a BC date', '0001-12-31T00:00:00+00:00 BC'],
    ['a year past 9999', '12000-01-01T00:00:00+00:00'],
    ['infinity', 'infinity'],
    ['-infinity', '-infinity'],
    ['seven fraction digits', '2024-01-01T00:00:00.1234567+00:00'],
    ['a fraction point without digits', '2024-01-01T00:00:00.+00:00'],
    ['a Z zone', '2024-01-01T00:00:00.123Z'],
    ['the text form', '2024-01-01 00:00:00.123+00'],
    ['a date alone', '2024-01-01'],
    ['trailing text', '2024-01-01T00:00:00+00:00x'],
  ])('leaves %s to the Date path (null)', (_what, text) => {
    expect(isoFromPgJsonTimestamp(text)).toBeNull();
  });
});
