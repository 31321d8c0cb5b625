// The rule language of dynamic segments (§6): fields, operators, the tree, its JSON.

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
