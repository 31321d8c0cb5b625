import { clockOf, minutesOf, quietUntil } from './quiet-hours';

describe('quiet hours', () => {
  const night = { start: minutesOf('21:00')!, end: minutesOf('08:00')! };

  it('reads and writes HH:MM', () => {
    expect(minutesOf('21:30')).toBe(1290);
    expect(minutesOf('00:00')).toBe(0);
    for (const bad of ['24:00', '7:00', '07:60', '0700', '']) expect(minutesOf(bad)).toBeNull();
    expect(clockOf(1290)).toBe('21:30');
    expect(clockOf(5)).toBe('00:05');
  });

  it('holds a contact until the window ends in its own time zone, across midnight', () => {
    // 23:30 in New York (UTC-5 in January): quiet until 08:00 there, 13:00 UTC.
    const at = new Date('2030-01-15T04:30:00Z');
    expect(quietUntil(night, at, 'America/New_York')).toEqual(new Date('2030-01-15T13:00:00Z'));
    // The same instant is 05:30 in Berlin: quiet until 08:00 there, 07:00 UTC.
    expect(quietUntil(night, at, 'Europe/Berlin')).toEqual(new Date('2030-01-15T07:00:00Z'));
    // And 13:30 in Tokyo: no quiet hours.
    expect(quietUntil(night, at, 'Asia/Tokyo')).toBeNull();
  });

  it('takes UTC for a contact without a time zone or with an unknown one', () => {
    const at = new Date('2030-01-15T22:15:30Z');
    const until = new Date('2030-01-16T08:00:00Z');
    expect(quietUntil(night, at, null)).toEqual(until);
    expect(quietUntil(night, at, 'Mars/Olympus_Mons')).toEqual(until);
  });

  it('keeps a window within one day, its end exclusive, and an empty window empty', () => {
    const lunch = { start: minutesOf('12:00')!, end: minutesOf('13:00')! };
    expect(quietUntil(lunch, new Date('2030-01-15T12:59:00Z'), 'UTC')).toEqual(
      new Date('2030-01-15T13:00:00Z'),
    );
    expect(quietUntil(lunch, new Date('2030-01-15T13:00:00Z'), 'UTC')).toBeNull();
    expect(quietUntil(lunch, new Date('2030-01-15T11:59:59Z'), 'UTC')).toBeNull();
    expect(
      quietUntil({ start: 600, end: 600 }, new Date('2030-01-15T10:00:00Z'), 'UTC'),
    ).toBeNull();
  });
});
