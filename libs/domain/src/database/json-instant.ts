// Timestamps of a statement's JSON columns, printed without a Date (toListedEntities).
//
// PostgreSQL writes a timestamptz into JSON as ISO 8601 in the session time zone
// ('2024-01-01T00:00:00.123456+00:00' in UTC: 0-6 fraction digits, trailing zeros dropped). The
// response prints it as Date#toISOString does ('2024-01-01T00:00:00.123Z'). The Date path (new
// Date(text), which keeps the first three fraction digits and drops the rest, then toISOString)
// is skipped: a first contacts page carries about 800 timestamps (a kept optimisation,
// docs/performance.md). For the one form this
// module recognises, the text is already that instant's toISOString up to the fraction and the
// zone; anything else (another offset, a BC date, a year past 9999, infinity) gets null and the
// caller takes the Date path, so both print the same text or fail the same way.

/** PostgreSQL's JSON text of a timestamptz in UTC, years 0001-9999. */
const UTC_JSON_TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.(\d{1,6}))?\+00:00$/;

/**
 * `new Date(text).toISOString()` for PostgreSQL's JSON text of a UTC timestamptz, computed on the
 * text (milliseconds truncated as V8's parser truncates them); null for any other input.
 */
export function isoFromPgJsonTimestamp(text: string): string | null {
  const m = UTC_JSON_TIMESTAMP.exec(text);
  if (!m) return null;
  const fraction = m[1];
  if (fraction === undefined) return `${text.slice(0, 19)}.000Z`;
  return `${text.slice(0, 19)}.${fraction.length >= 3 ? fraction.slice(0, 3) : fraction.padEnd(3, '0')}Z`;
}
