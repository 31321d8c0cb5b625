// timestamptz values of the application's pool: the same instants node-postgres would produce,
// parsed without its general regex, and carrying their ISO 8601 form. A page of contacts holds
// about a thousand timestamps, and Date.prototype.toISOString alone cost about a microsecond
// each; the ISO string is assembled from the text PostgreSQL sent while parsing it.
import type { CustomTypesConfig } from 'pg';
import { types as pgTypes } from 'pg';

const TIMESTAMPTZ_OID = 1184;

/** PostgreSQL's text form in a UTC session: `2024-01-05 13:46:40.123456+00` (fraction optional). */
const UTC_TIMESTAMP = /^(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(\.\d{1,6})?\+00$/;

/**
 * A Date read from the database. It behaves as any Date; toISOString (and so toJSON) returns the
 * string built at parse time while the instant is unchanged, and computes it afresh otherwise.
 */
export class DbTimestamp extends Date {
  private readonly isoAt: number;
  private readonly iso: string;

  constructor(ms: number, iso: string) {
    super(ms);
    this.isoAt = ms;
    this.iso = iso;
  }

  override toISOString(): string {
    return this.getTime() === this.isoAt ? this.iso : super.toISOString();
  }
}

const defaultParser = pgTypes.getTypeParser(TIMESTAMPTZ_OID, 'text') as (v: string) => unknown;

/**
 * Exactly what node-postgres' parser returns (postgres-date: fraction as `1000 * parseFloat`,
 * truncated by Date.UTC), for the UTC text form; anything else (another session time zone,
 * years before 100, BC, infinity) goes to node-postgres' own parser.
 */
export function parseTimestamptz(text: string): unknown {
  const m = UTC_TIMESTAMP.exec(text);
  if (!m || m[1] < '0100') return defaultParser(text);
  const frac = m[7];
  const ms = frac ? Math.trunc(1000 * parseFloat(frac)) : 0;
  const at = Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6], ms);
  if (Number.isNaN(at)) return defaultParser(text);
  const iso = `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}.${String(ms).padStart(3, '0')}Z`;
  return new DbTimestamp(at, iso);
}

/** node-postgres type parsers of the application's pool (`extra.types`). */
export const POOL_TYPES: CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === TIMESTAMPTZ_OID && format !== 'binary'
      ? parseTimestamptz
      : pgTypes.getTypeParser(oid, format)) as CustomTypesConfig['getTypeParser'],
};
