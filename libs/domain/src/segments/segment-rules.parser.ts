// The validator of segment rules: untrusted JSON in, a typed tree or one 422 out.
import { isEmail } from 'class-validator';
import { ValidationFailedError } from '../errors/domain-errors';
import {
  CODE_FIELDS,
  CONTACT_STATUS_VALUES,
  CUSTOM_FIELD_KEY,
  CUSTOM_FIELD_OPERATORS,
  CodeField,
  CodeOperator,
  DATE_FIELDS,
  DateField,
  DateOperator,
  EMAIL_STATUS_VALUES,
  FIELD_OPERATORS,
  MAX_RULE_CONDITIONS,
  MAX_RULE_DEPTH,
  NUMERIC_OPERATORS,
  NumericOperator,
  RULE_CHANNELS,
  RuleChannel,
  RuleCondition,
  RuleGroup,
  RuleNode,
  TEXT_FIELDS,
  TextField,
  TextOperator,
} from './segment-rules';
import { Json, RuleValues } from './segment-rules.values';

function isPlainObject(v: Json): v is Record<string, Json> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Walks an untrusted rule tree: groups, conditions, the allow-list of fields and operators. */
class RulesValidator extends RuleValues {
  private conditionCount = 0;
  private overCount = false;

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
