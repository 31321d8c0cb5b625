// The organization sending limits of §8: plan defaults, per-organization overrides, and the UTC
// window arithmetic the limiter and its readers share.
import type { Plan } from '../tenancy/organization.entity';

/** Windows in the order §8 checks them; the first that would overflow names the refusal. */
export const SENDING_WINDOWS = ['perSecond', 'perMinute', 'perHour', 'perDay', 'perMonth'] as const;
export type SendingWindow = (typeof SENDING_WINDOWS)[number];

export type SendingLimits = Record<SendingWindow, number>;

/** perSecond, perMinute and perHour count send requests; perDay and perMonth count recipients. */
export const WINDOW_COUNTS: Record<SendingWindow, 'requests' | 'recipients'> = {
  perSecond: 'requests',
  perMinute: 'requests',
  perHour: 'requests',
  perDay: 'recipients',
  perMonth: 'recipients',
};

export const PLAN_SENDING_LIMITS: Record<Plan, SendingLimits> = {
  free: { perSecond: 2, perMinute: 60, perHour: 500, perDay: 1_000, perMonth: 10_000 },
  pro: { perSecond: 20, perMinute: 600, perHour: 10_000, perDay: 100_000, perMonth: 2_000_000 },
  enterprise: {
    perSecond: 200,
    perMinute: 6_000,
    perHour: 100_000,
    perDay: 2_000_000,
    perMonth: 50_000_000,
  },
};

/**
 * An override that stands for "no limit": the largest value the limit columns hold, which no
 * window's count reaches. Null, by contrast, means "the plan's default".
 */
export const UNLIMITED_SENDING_LIMIT = 2_147_483_647;

/** The organization columns the limits are resolved from (organizations.limit_per_*). */
export interface OrganizationLimitSource {
  plan: Plan;
  limitPerSecond: number | null;
  limitPerMinute: number | null;
  limitPerHour: number | null;
  limitPerDay: number | null;
  limitPerMonth: number | null;
}

/** Plan defaults with the organization's overrides applied (null = plan default). */
export function resolveSendingLimits(org: OrganizationLimitSource): SendingLimits {
  const plan = PLAN_SENDING_LIMITS[org.plan] ?? PLAN_SENDING_LIMITS.free;
  return {
    perSecond: org.limitPerSecond ?? plan.perSecond,
    perMinute: org.limitPerMinute ?? plan.perMinute,
    perHour: org.limitPerHour ?? plan.perHour,
    perDay: org.limitPerDay ?? plan.perDay,
    perMonth: org.limitPerMonth ?? plan.perMonth,
  };
}

export interface CalendarWindow {
  /** Identifies the window in its Redis key (changes at each UTC boundary). */
  id: string;
  startMs: number;
  resetMs: number;
}

const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;

/** The UTC calendar windows (minute, hour, day, month) that contain `nowMs`. */
export function calendarWindows(
  nowMs: number,
): Record<Exclude<SendingWindow, 'perSecond'>, CalendarWindow> {
  const fixed = (size: number, tag: string): CalendarWindow => {
    const start = Math.floor(nowMs / size) * size;
    return { id: `${tag}${start / size}`, startMs: start, resetMs: start + size };
  };
  const d = new Date(nowMs);
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth();
  return {
    perMinute: fixed(MINUTE, 'm'),
    perHour: fixed(HOUR, 'h'),
    perDay: fixed(DAY, 'd'),
    perMonth: {
      id: `M${y}-${String(m + 1).padStart(2, '0')}`,
      startMs: Date.UTC(y, m, 1),
      resetMs: Date.UTC(y, m + 1, 1),
    },
  };
}
