// The report's split of a window into whole UTC days and partial edges.
import { windowParts } from './revenue-report.repository';

const d = (s: string) => new Date(s);

describe('windowParts', () => {
  it('a day-aligned window is all whole days, no edges', () => {
    expect(windowParts(d('2030-03-01T00:00:00Z'), d('2030-03-04T00:00:00Z'))).toEqual({
      fullFromDay: '2030-03-01',
      fullToDay: '2030-03-04',
      edges: [],
    });
  });

  it('partial first and last days become edges around the whole days', () => {
    expect(windowParts(d('2030-03-01T12:00:00Z'), d('2030-03-04T06:00:00Z'))).toEqual({
      fullFromDay: '2030-03-02',
      fullToDay: '2030-03-04',
      edges: [
        [d('2030-03-01T12:00:00Z'), d('2030-03-02T00:00:00Z')],
        [d('2030-03-04T00:00:00Z'), d('2030-03-04T06:00:00Z')],
      ],
    });
  });

  it('a window without a whole day is one edge and an empty day range', () => {
    for (const [from, to] of [
      ['2030-03-01T01:00:00Z', '2030-03-01T05:00:00Z'],
      ['2030-03-01T12:00:00Z', '2030-03-02T12:00:00Z'],
    ]) {
      const parts = windowParts(d(from), d(to));
      expect(parts.edges).toEqual([[d(from), d(to)]]);
      expect(parts.fullFromDay).toBe(parts.fullToDay);
    }
  });
});
