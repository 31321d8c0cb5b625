// The rule language of dynamic segments (§6): the allow-list of fields and operators, the value each
// operator takes, and the validator that turns untrusted JSON into a typed tree or a 422 naming the
// path of every faulty node. The compiler only ever sees what this file returned.
import { isEmail } from 'class-validator';
import { isUuid } from '../common/ids';
import { FieldError, ValidationFailedError } from '../errors/domain-errors';

export const MAX_RULE_DEPTH = 5;
export const MAX_RULE_CONDITIONS = 100;
/** Longest string value and longest array value a condition may carry. */
export const MAX_RULE_STRING = 1000;
export const MAX_RULE_ARRAY = 100;
export const MAX_WITHIN_DAYS = 36_500;
export const CUSTOM_FIELD_KEY = /^[A-Za-z0-9_]{1,64}$/;

export const CONTACT_STATUS_VALUES = ['active', 'inactive', 'archived'] as const;
export const EMAIL_STATUS_VALUES = [
  'verified',
  'unverified',
  'bounced',
  'complained',
  'suppressed',
] as const;
export const RULE_CHANNELS = ['email', 'sms', 'whatsapp', 'telegram', 'imessage', 'push'] as const;
export type RuleChannel = (typeof RULE_CHANNELS)[number];

export const TEXT_OPERATORS = [
  'equals',
  'notEquals',
  'contains',
  'notContains',
  'startsWith',
  'endsWith',
  'isEmpty',
  'isNotEmpty',
] as const;
export const CODE_OPERATORS = ['equals', 'notEquals', 'in', 'notIn'] as const;
export const DATE_OPERATORS = [
  'before',
  'after',
  'between',
  'withinLastDays',
  'notWithinLastDays',
  'isEmpty',
  'isNotEmpty',
] as const;
export const TAG_OPERATORS = ['hasAny', 'hasAll', 'hasNone'] as const;
export const LIST_OPERATORS = ['subscribedTo', 'notSubscribedTo'] as const;
export const CHANNEL_OPERATORS = ['has', 'hasNot'] as const;
export const EMAIL_OPERATORS = ['equals', 'isEmpty', 'isNotEmpty'] as const;
export const EMAIL_STATUS_OPERATORS = ['equals', 'in'] as const;
export const NUMERIC_OPERATORS = ['gt', 'gte', 'lt', 'lte'] as const;
export const CUSTOM_FIELD_OPERATORS = [...TEXT_OPERATORS, ...NUMERIC_OPERATORS] as const;

export type TextOperator = (typeof TEXT_OPERATORS)[number];
export type CodeOperator = (typeof CODE_OPERATORS)[number];
export type DateOperator = (typeof DATE_OPERATORS)[number];
export type NumericOperator = (typeof NUMERIC_OPERATORS)[number];

/** Every field a rule may name, by kind. `customFields.<key>` is the one open-ended family. */
export const TEXT_FIELDS = ['firstName', 'lastName', 'displayName', 'notes'] as const;
export const CODE_FIELDS = ['status', 'language', 'timezone'] as const;
export const DATE_FIELDS = ['createdAt', 'updatedAt', 'lastActivityAt'] as const;
export type TextField = (typeof TEXT_FIELDS)[number];
export type CodeField = (typeof CODE_FIELDS)[number];
export type DateField = (typeof DATE_FIELDS)[number];

/** The operators of each named field, in the order §6 lists them. */
export const FIELD_OPERATORS: Record<string, readonly string[]> = {
  ...Object.fromEntries(TEXT_FIELDS.map((f) => [f, TEXT_OPERATORS])),
  ...Object.fromEntries(CODE_FIELDS.map((f) => [f, CODE_OPERATORS])),
  ...Object.fromEntries(DATE_FIELDS.map((f) => [f, DATE_OPERATORS])),
  tags: TAG_OPERATORS,
  lists: LIST_OPERATORS,
  channel: CHANNEL_OPERATORS,
  email: EMAIL_OPERATORS,
  emailStatus: EMAIL_STATUS_OPERATORS,
};

// ---- the validated tree ---------------------------------------------------------------------

export type RuleCondition =
  | { kind: 'text'; field: TextField; operator: TextOperator; value: string | null }
  | { kind: 'code'; field: CodeField; operator: CodeOperator; value: string | string[] }
  | {
      kind: 'date';
      field: DateField;
      operator: DateOperator;
      /** ISO instants; a number of days for the `…LastDays` operators; null for isEmpty. */
      value: string | [string, string] | number | null;
    }
  | { kind: 'tags'; operator: (typeof TAG_OPERATORS)[number]; value: string[] }
  | { kind: 'lists'; operator: (typeof LIST_OPERATORS)[number]; value: string[] }
  | { kind: 'channel'; operator: (typeof CHANNEL_OPERATORS)[number]; value: RuleChannel[] }
  | { kind: 'email'; operator: (typeof EMAIL_OPERATORS)[number]; value: string | null }
  | {
      kind: 'emailStatus';
      operator: (typeof EMAIL_STATUS_OPERATORS)[number];
      value: string | string[];
    }
  | {
      kind: 'custom';
      key: string;
      operator: TextOperator | NumericOperator;
      value: string | number | null;
    };

export interface RuleGroup {
  kind: 'group';
  operator: 'and' | 'or';
  conditions: RuleNode[];
}
export type RuleNode = RuleGroup | RuleCondition;

/** The JSON shape clients send and the segment stores (§6). */
export interface RuleGroupJson {
  operator: 'and' | 'or';
  conditions: (RuleGroupJson | RuleConditionJson)[];
}
export interface RuleConditionJson {
  field: string;
  operator: string;
  /** Omitted for isEmpty / isNotEmpty. */
  value?: string | number | string[];
}

// ---- validation -----------------------------------------------------------------------------

// A calendar date, or a date-time with optional seconds, fraction and offset (UTC when absent).
const ISO_DATE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;

type Json = unknown;

function isPlainObject(v: Json): v is Record<string, Json> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

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

class RulesValidator {
  readonly errors: FieldError[] = [];
  private conditionCount = 0;
  private overCount = false;

  fault(field: string, rule: string, message: string): void {
    this.errors.push({ field, rule, message });
  }

  group(v: Json, path: string, depth: number): RuleGroup | null {
    if (!isPlainObject(v)) {
      this.fault(path, 'type', `${path} must be a group {operator, conditions}`);
      return null;
    }
    if (depth > MAX_RULE_DEPTH) {
      this.fault(path, 'max', `Rules may nest at most ${MAX_RULE_DEPTH} levels of groups`);
      return null;
    }
    for (const key of Object.keys(v)) {
      if (key !== 'operator' && key !== 'conditions')
        this.fault(`${path}.${key}`, 'unknown', `${path}.${key} is not allowed in a group`);
    }
    let ok = true;
    const op = v.operator;
    if (op === undefined || op === null) {
      this.fault(`${path}.operator`, 'required', `${path}.operator is required`);
      ok = false;
    } else if (op !== 'and' && op !== 'or') {
      this.fault(`${path}.operator`, 'enum', `${path}.operator must be one of: and, or`);
      ok = false;
    }
    const list = v.conditions;
    if (list === undefined || list === null) {
      this.fault(`${path}.conditions`, 'required', `${path}.conditions is required`);
      return null;
    }
    if (!Array.isArray(list)) {
      this.fault(`${path}.conditions`, 'type', `${path}.conditions must be an array`);
      return null;
    }
    if (list.length === 0) {
      this.fault(`${path}.conditions`, 'minLength', `${path}.conditions must not be empty`);
      return null;
    }
    const conditions: RuleNode[] = [];
    for (let i = 0; i < list.length; i++) {
      if (this.overCount) break;
      const node = this.node(list[i], `${path}.conditions.${i}`, depth);
      if (node) conditions.push(node);
      else ok = false;
    }
    return ok && !this.overCount
      ? { kind: 'group', operator: op as 'and' | 'or', conditions }
      : null;
  }

  private node(v: Json, path: string, depth: number): RuleNode | null {
    if (isPlainObject(v) && 'conditions' in v) return this.group(v, path, depth + 1);
    if (!isPlainObject(v)) {
      this.fault(path, 'type', `${path} must be a condition {field, operator, value} or a group`);
      return null;
    }
    this.conditionCount++;
    if (this.conditionCount > MAX_RULE_CONDITIONS) {
      this.fault(path, 'max', `Rules may hold at most ${MAX_RULE_CONDITIONS} conditions`);
      this.overCount = true;
      return null;
    }
    return this.condition(v, path);
  }

  private condition(v: Record<string, Json>, path: string): RuleCondition | null {
    for (const key of Object.keys(v)) {
      if (key !== 'field' && key !== 'operator' && key !== 'value')
        this.fault(`${path}.${key}`, 'unknown', `${path}.${key} is not allowed in a condition`);
    }
    const field = v.field;
    const op = v.operator;
    const fp = `${path}.field`;
    const opPath = `${path}.operator`;
    if (field === undefined || field === null) {
      this.fault(fp, 'required', `${fp} is required`);
      return null;
    }
    if (typeof field !== 'string') {
      this.fault(fp, 'type', `${fp} must be a string`);
      return null;
    }
    let allowed: readonly string[] | undefined = FIELD_OPERATORS[field];
    let customKey: string | null = null;
    if (!Object.prototype.hasOwnProperty.call(FIELD_OPERATORS, field)) {
      allowed = undefined;
      if (field.startsWith('customFields.')) {
        customKey = field.slice('customFields.'.length);
        if (!CUSTOM_FIELD_KEY.test(customKey)) {
          this.fault(
            fp,
            'enum',
            `${fp}: a custom field key must be 1 to 64 letters, digits or underscores`,
          );
          return null;
        }
        allowed = CUSTOM_FIELD_OPERATORS;
      }
    }
    if (!allowed) {
      this.fault(fp, 'enum', `${fp} is not a field a rule may use`);
      return null;
    }
    if (op === undefined || op === null) {
      this.fault(opPath, 'required', `${opPath} is required`);
      return null;
    }
    if (typeof op !== 'string' || !allowed.includes(op)) {
      this.fault(opPath, 'enum', `${opPath} must be one of: ${allowed.join(', ')}`);
      return null;
    }
    const vp = `${path}.value`;
    const value = v.value;
    const errorsBefore = this.errors.length;
    const c = this.typed(field, customKey, op, value, vp);
    return c && this.errors.length === errorsBefore ? c : null;
  }

  private typed(
    field: string,
    customKey: string | null,
    op: string,
    value: Json,
    vp: string,
  ): RuleCondition | null {
    if (customKey !== null) {
      if ((NUMERIC_OPERATORS as readonly string[]).includes(op)) {
        const n = this.number(value, vp);
        return n === null
          ? null
          : { kind: 'custom', key: customKey, operator: op as NumericOperator, value: n };
      }
      const s = this.textValue(op, value, vp);
      return s === undefined
        ? null
        : { kind: 'custom', key: customKey, operator: op as TextOperator, value: s };
    }
    if ((TEXT_FIELDS as readonly string[]).includes(field)) {
      const s = this.textValue(op, value, vp);
      return s === undefined
        ? null
        : { kind: 'text', field: field as TextField, operator: op as TextOperator, value: s };
    }
    if ((CODE_FIELDS as readonly string[]).includes(field)) {
      const allowed = field === 'status' ? CONTACT_STATUS_VALUES : null;
      const multi = op === 'in' || op === 'notIn';
      const val = multi
        ? this.stringArray(value, vp, 255, allowed)
        : this.string(value, vp, 255, allowed);
      return val === null
        ? null
        : { kind: 'code', field: field as CodeField, operator: op as CodeOperator, value: val };
    }
    if ((DATE_FIELDS as readonly string[]).includes(field)) {
      const val = this.dateValue(op, value, vp);
      return val === undefined
        ? null
        : { kind: 'date', field: field as DateField, operator: op as DateOperator, value: val };
    }
    switch (field) {
      case 'tags': {
        const val = this.stringArray(value, vp, 255, null);
        return val && { kind: 'tags', operator: op as RuleConditionOf<'tags'>, value: val };
      }
      case 'lists': {
        const val = this.stringArray(value, vp, 36, null, true);
        return (
          val && {
            kind: 'lists',
            operator: op as RuleConditionOf<'lists'>,
            value: val.map((s) => s.toLowerCase()),
          }
        );
      }
      case 'channel': {
        const val = this.stringArray(value, vp, 20, RULE_CHANNELS);
        return (
          val && {
            kind: 'channel',
            operator: op as RuleConditionOf<'channel'>,
            value: val as RuleChannel[],
          }
        );
      }
      case 'email': {
        if (op !== 'equals') {
          return this.noValue(value, vp)
            ? { kind: 'email', operator: op as RuleConditionOf<'email'>, value: null }
            : null;
        }
        const s = this.string(value, vp, 320, null);
        if (s === null) return null;
        if (!isEmail(s.trim())) {
          this.fault(vp, 'email', `${vp} must be an email address`);
          return null;
        }
        return { kind: 'email', operator: 'equals', value: s };
      }
      case 'emailStatus': {
        const val =
          op === 'in'
            ? this.stringArray(value, vp, 20, EMAIL_STATUS_VALUES)
            : this.string(value, vp, 20, EMAIL_STATUS_VALUES);
        return val === null
          ? null
          : { kind: 'emailStatus', operator: op as RuleConditionOf<'emailStatus'>, value: val };
      }
    }
    return null;
  }

  /** undefined on a fault; null for the operators that take no value. */
  private textValue(op: string, value: Json, vp: string): string | null | undefined {
    if (op === 'isEmpty' || op === 'isNotEmpty') return this.noValue(value, vp) ? null : undefined;
    const s = this.string(value, vp, MAX_RULE_STRING, null);
    return s === null ? undefined : s;
  }

  private dateValue(
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

  private date(value: Json, vp: string): string | null {
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

  private number(value: Json, vp: string): number | null {
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      this.missingOr(value, vp, 'type', `${vp} must be a number`);
      return null;
    }
    return value;
  }

  private noValue(value: Json, vp: string): boolean {
    if (value === undefined || value === null) return true;
    this.fault(vp, 'unknown', `${vp} must be omitted for this operator`);
    return false;
  }

  private string(
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

  private stringArray(
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

  private missingOr(value: Json, vp: string, rule: string, message: string): undefined {
    if (value === undefined || value === null) this.fault(vp, 'required', `${vp} is required`);
    else this.fault(vp, rule, message);
    return undefined;
  }
}

type RuleConditionOf<K extends RuleCondition['kind']> = Extract<
  RuleCondition,
  { kind: K }
>['operator'];

/**
 * Validates an untrusted rule tree. Returns the typed tree, or throws one 422 listing a FieldError
 * per faulty node, each named by its path from `path` (e.g. `rules.conditions.1.conditions.0.value`).
 */
export function parseRules(input: unknown, path = 'rules'): RuleGroup {
  const v = new RulesValidator();
  if (input === undefined || input === null) {
    throw ValidationFailedError.field(path, 'required', `${path} is required`);
  }
  const tree = v.group(input, path, 1);
  if (v.errors.length || !tree) {
    throw new ValidationFailedError(
      v.errors.length ? v.errors : [{ field: path, rule: 'type', message: `${path} is invalid` }],
    );
  }
  return tree;
}

/** The stored JSON of a validated tree: exactly the keys §6 defines, values normalised. */
export function rulesToJson(g: RuleGroup): RuleGroupJson {
  return {
    operator: g.operator,
    conditions: g.conditions.map((n) => {
      if (n.kind === 'group') return rulesToJson(n);
      const field =
        n.kind === 'custom'
          ? `customFields.${n.key}`
          : n.kind === 'text' || n.kind === 'code' || n.kind === 'date'
            ? n.field
            : n.kind;
      return n.value === null
        ? { field, operator: n.operator }
        : { field, operator: n.operator, value: n.value };
    }),
  };
}
