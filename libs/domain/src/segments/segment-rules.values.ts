// Checks of segment rule values (strings, arrays, numbers, dates), faults by path.
import { isUuid } from '../common/ids';
import { FieldError } from '../errors/domain-errors';
import { MAX_RULE_ARRAY, MAX_RULE_STRING, MAX_WITHIN_DAYS } from './segment-rules';

// A calendar date, or a date-time with optional seconds, fraction and offset (UTC when absent).
const ISO_DATE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;

export type Json = unknown;

/** An instant from an ISO 8601 date or date-time; null when it is not one or not a real date. */
export function parseRuleDate(v: string): Date | null {
  const m = ISO_DATE.exec(v);
  if (!m) return null;
  const [, y, mo, d, h, mi, s, zone] = m;
  const monthDays = new Date(Date.UTC(Number(y), Number(mo), 0)).getUTCDate();
  if (Number(mo) < 1 || Number(mo) > 12 || Number(d) < 1 || Number(d) > monthDays) return null;
  if (h !== undefined && (Number(h) > 23 || Number(mi) > 59 || Number(s ?? 0) > 59)) return null;
  const text =
    h === undefined ? `${y}-${mo}-${d}T00:00:00Z` : v.replace(' ', 'T') + (zone ? '' : 'Z');
  const t = Date.parse(text);
  return Number.isNaN(t) ? null : new Date(t);
}

/** Checks the value of a condition, collecting one FieldError per fault (named by its path). */
export class RuleValues {
  readonly errors: FieldError[] = [];

  fault(field: string, rule: string, message: string): void {
    this.errors.push({ field, rule, message });
  }

  /** undefined on a fault; null for the operators that take no value. */
  protected textValue(op: string, value: Json, vp: string): string | null | undefined {
    if (op === 'isEmpty' || op === 'isNotEmpty') return this.noValue(value, vp) ? null : undefined;
    const s = this.string(value, vp, MAX_RULE_STRING, null);
    return s === null ? undefined : s;
  }

  protected dateValue(
    op: string,
    value: Json,
    vp: string,
  ): string | [string, string] | number | null | undefined {
    switch (op) {
      case 'isEmpty':
      case 'isNotEmpty':
        return this.noValue(value, vp) ? null : undefined;
      case 'withinLastDays':
      case 'notWithinLastDays': {
        if (typeof value !== 'number' || !Number.isInteger(value)) {
          return this.missingOr(value, vp, 'type', `${vp} must be a whole number of days`);
        }
        if (value < 1) return this.missingOr(value, vp, 'min', `${vp} must be at least 1`);
        if (value > MAX_WITHIN_DAYS)
          return this.missingOr(value, vp, 'max', `${vp} must be at most ${MAX_WITHIN_DAYS}`);
        return value;
      }
      case 'between': {
        if (!Array.isArray(value) || value.length !== 2) {
          return this.missingOr(value, vp, 'type', `${vp} must be an array of two dates`);
        }
        const a = this.date(value[0], `${vp}.0`);
        const b = this.date(value[1], `${vp}.1`);
        if (a === null || b === null) return undefined;
        if (a > b) {
          this.fault(vp, 'min', `${vp}: the first date must not be after the second`);
          return undefined;
        }
        return [a, b];
      }
      default: {
        const d = this.date(value, vp);
        return d === null ? undefined : d;
      }
    }
  }

  protected date(value: Json, vp: string): string | null {
    if (typeof value !== 'string') {
      this.missingOr(value, vp, 'type', `${vp} must be an ISO 8601 date or date-time`);
      return null;
    }
    const d = parseRuleDate(value.trim());
    if (!d) {
      this.fault(vp, 'type', `${vp} must be an ISO 8601 date or date-time`);
      return null;
    }
    return d.toISOString();
  }

  protected number(value: Json, vp: string): number | null {
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      this.missingOr(value, vp, 'type', `${vp} must be a number`);
      return null;
    }
    return value;
  }

  protected noValue(value: Json, vp: string): boolean {
    if (value === undefined || value === null) return true;
    this.fault(vp, 'unknown', `${vp} must be omitted for this operator`);
    return false;
  }

  protected string(
    value: Json,
    vp: string,
    max: number,
    allowed: readonly string[] | null,
  ): string | null {
    if (typeof value !== 'string') {
      this.missingOr(value, vp, 'type', `${vp} must be a string`);
      return null;
    }
    if (value.length < 1) {
      this.fault(vp, 'minLength', `${vp} must not be empty`);
      return null;
    }
    if (value.length > max) {
      this.fault(vp, 'maxLength', `${vp} must be at most ${max} characters`);
      return null;
    }
    // PostgreSQL text cannot hold NUL: refuse it here rather than fail in the database.
    if (value.includes('\u0000')) {
      this.fault(vp, 'type', `${vp} must not contain NUL characters`);
      return null;
    }
    if (allowed && !allowed.includes(value)) {
      this.fault(vp, 'enum', `${vp} must be one of: ${allowed.join(', ')}`);
      return null;
    }
    return value;
  }

  protected stringArray(
    value: Json,
    vp: string,
    max: number,
    allowed: readonly string[] | null,
    uuid = false,
  ): string[] | null {
    if (!Array.isArray(value)) {
      this.missingOr(value, vp, 'type', `${vp} must be an array`);
      return null;
    }
    if (value.length < 1) {
      this.fault(vp, 'minLength', `${vp} must hold at least one value`);
      return null;
    }
    if (value.length > MAX_RULE_ARRAY) {
      this.fault(vp, 'maxLength', `${vp} may hold at most ${MAX_RULE_ARRAY} values`);
      return null;
    }
    const out: string[] = [];
    let ok = true;
    value.forEach((item, i) => {
      const ip = `${vp}.${i}`;
      if (uuid && !isUuid(item)) {
        this.fault(ip, 'uuid', `${ip} must be a UUID`);
        ok = false;
        return;
      }
      const s = this.string(item, ip, max, allowed);
      if (s === null) ok = false;
      else out.push(s);
    });
    return ok ? out : null;
  }

  protected missingOr(value: Json, vp: string, rule: string, message: string): undefined {
    if (value === undefined || value === null) this.fault(vp, 'required', `${vp} is required`);
    else this.fault(vp, rule, message);
    return undefined;
  }
}
