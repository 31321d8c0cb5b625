import { types as pgTypes } from 'pg';
import { DbTimestamp, parseTimestamptz, POOL_TYPES } from './timestamps';

const pgParse = pgTypes.getTypeParser(1184, 'text') as (v: string) => Date | number;

describe('parseTimestamptz', () => {
  const samples = [
    '2024-01-05 13:46:40+00',
    '2024-01-05 13:46:40.1+00',
    '2024-01-05 13:46:40.29+00',
    '2024-01-05 13:46:40.291+00',
    '2024-01-05 13:46:40.123456+00',
    '2024-01-05 13:46:40.999999+00',
    '2024-01-05 13:46:40.000001+00',
    '1970-01-01 00:00:00+00',
    '2099-12-31 23:59:59.5+00',
    '0150-06-01 12:00:00+00',
    ...Array.from(
      { length: 200 },
      (_, i) =>
        `2026-11-22 02:${String(i % 60).padStart(2, '0')}:07.${String(i * 4999).padStart(6, '0')}+00`,
    ),
  ];

  it.each(samples)('gives the instant and ISO form node-postgres gives for %s', (text) => {
    const ours = parseTimestamptz(text) as Date;
    const theirs = pgParse(text) as Date;
    expect(ours).toBeInstanceOf(DbTimestamp);
    expect(ours).toBeInstanceOf(Date);
    expect(ours.getTime()).toBe(theirs.getTime());
    expect(ours.toISOString()).toBe(theirs.toISOString());
    expect(JSON.stringify({ at: ours })).toBe(JSON.stringify({ at: theirs }));
  });

  it.each([
    '2024-01-05 13:46:40+02',
    '2024-01-05 13:46:40.5-05:30',
    '0050-01-01 00:00:00+00',
    '2024-01-05 13:46:40+00 BC',
    'infinity',
    '-infinity',
  ])('leaves %s to node-postgres', (text) => {
    const ours = parseTimestamptz(text);
    const theirs = pgParse(text);
    expect(ours).not.toBeInstanceOf(DbTimestamp);
    expect(ours instanceof Date ? ours.getTime() : ours).toBe(
      theirs instanceof Date ? theirs.getTime() : theirs,
    );
  });

  it('recomputes the ISO form once the date is changed', () => {
    const d = parseTimestamptz('2024-01-05 13:46:40.123+00') as Date;
    d.setUTCFullYear(2030);
    expect(d.toISOString()).toBe('2030-01-05T13:46:40.123Z');
  });

  it('is the pool parser for timestamptz only', () => {
    expect(POOL_TYPES.getTypeParser(1184, 'text')).toBe(parseTimestamptz);
    expect(POOL_TYPES.getTypeParser(1114, 'text')).toBe(pgTypes.getTypeParser(1114, 'text'));
    expect(POOL_TYPES.getTypeParser(25, 'text')).toBe(pgTypes.getTypeParser(25, 'text'));
  });
});
