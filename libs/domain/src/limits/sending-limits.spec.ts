// Plan defaults, per-organization overrides and the UTC calendar windows of the sending limits.
import { calendarWindows, PLAN_SENDING_LIMITS, resolveSendingLimits } from './sending-limits';

describe('sending limits', () => {
  it('computes the UTC calendar windows', () => {
    const w = calendarWindows(Date.parse('2031-12-31T23:59:59.999Z'));
    expect(new Date(w.perMinute.resetMs).toISOString()).toBe('2032-01-01T00:00:00.000Z');
    expect(new Date(w.perHour.startMs).toISOString()).toBe('2031-12-31T23:00:00.000Z');
    expect(new Date(w.perDay.resetMs).toISOString()).toBe('2032-01-01T00:00:00.000Z');
    expect(w.perMonth.id).toBe('M2031-12');
    expect(new Date(w.perMonth.resetMs).toISOString()).toBe('2032-01-01T00:00:00.000Z');
    const leap = calendarWindows(Date.parse('2032-02-29T12:00:00Z'));
    expect(new Date(leap.perMonth.resetMs).toISOString()).toBe('2032-03-01T00:00:00.000Z');
  });

  it('applies overrides over the plan defaults', () => {
    expect(
      resolveSendingLimits({
        plan: 'free',
        limitPerSecond: null,
        limitPerMinute: 5,
        limitPerHour: null,
        limitPerDay: 0,
        limitPerMonth: null,
      }),
    ).toEqual({ ...PLAN_SENDING_LIMITS.free, perMinute: 5, perDay: 0 });
  });
});
