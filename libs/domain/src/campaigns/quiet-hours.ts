// A campaign's quiet hours (§17): a daily window, in each contact's own time zone, during which
// the campaign sends it nothing; a contact met inside the window is held until the window ends.

/** A daily window in minutes of the day, `start` inclusive, `end` exclusive; it may span midnight. */
export interface QuietHours {
  start: number;
  end: number;
}

const MINUTES_A_DAY = 24 * 60;
const HH_MM = /^([01]\d|2[0-3]):([0-5]\d)$/;

/** `HH:MM` (24-hour) as minutes of the day, or null when it is not one. */
export function minutesOf(text: string): number | null {
  const m = HH_MM.exec(text);
  return m ? Number(m[1]) * 60 + Number(m[2]) : null;
}

/** Minutes of the day as `HH:MM`. */
export function clockOf(minutes: number): string {
  return `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
}

const formats = new Map<string, Intl.DateTimeFormat>();

/** The wall-clock minute of `at` in `timeZone` (an IANA name; UTC when absent or unknown). */
function localMinute(at: Date, timeZone: string | null): number {
  const zone = timeZone || 'UTC';
  let format = formats.get(zone);
  if (!format) {
    try {
      format = new Intl.DateTimeFormat('en-GB', {
        timeZone: zone,
        hour: '2-digit',
        minute: '2-digit',
        hourCycle: 'h23',
      });
    } catch {
      return timeZone ? localMinute(at, null) : at.getUTCHours() * 60 + at.getUTCMinutes();
    }
    if (formats.size > 1000) formats.clear();
    formats.set(zone, format);
  }
  const parts = format.formatToParts(at);
  const part = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  return part('hour') * 60 + part('minute');
}

/**
 * When the quiet window that `at` falls in ends for a contact in `timeZone`, or null when `at` is
 * outside it. A window whose start equals its end is empty.
 */
export function quietUntil(q: QuietHours, at: Date, timeZone: string | null): Date | null {
  const m = localMinute(at, timeZone);
  const inside = q.start < q.end ? m >= q.start && m < q.end : m >= q.start || m < q.end;
  if (q.start === q.end || !inside) return null;
  const minutesLeft = (q.end - m + MINUTES_A_DAY) % MINUTES_A_DAY;
  const startOfMinute = at.getTime() - (at.getTime() % 60_000);
  return new Date(startOfMinute + minutesLeft * 60_000);
}
