// The rule language of dynamic segments (§6) as the builder offers it: each field, its operators
// and the kind of value each operator takes. Fields and operators are the OpenAPI document's: one
// condition schema per kind of field names that kind's fields and operators.
import type { components } from '../../api/schema';
import {
  segmentChannelOperatorValues,
  segmentCodeFieldValues,
  segmentCodeOperatorValues,
  segmentDateFieldValues,
  segmentDateOperatorValues,
  segmentEmailOperatorValues,
  segmentEmailStatusOperatorValues,
  segmentListsOperatorValues,
  segmentTagsOperatorValues,
  segmentTextFieldValues,
  segmentTextOperatorValues,
} from '../../api/schema-values';
import type { SegmentGroup } from '../../api/types';

type Schemas = components['schemas'];
/** One condition of a rule group, of any kind. */
export type SegmentCondition = Exclude<SegmentGroup['conditions'][number], SegmentGroup>;
export type SegmentOperator = SegmentCondition['operator'];
/** Every field the builder offers: all but the open-ended `customFields.<key>`. */
type BuilderField =
  | Schemas['SegmentTextField']
  | Schemas['SegmentCodeField']
  | Schemas['SegmentDateField']
  | Schemas[
      | 'SegmentTagsConditionResponse'
      | 'SegmentListsConditionResponse'
      | 'SegmentChannelConditionResponse'
      | 'SegmentEmailConditionResponse'
      | 'SegmentEmailStatusConditionResponse']['field'];

export type ValueKind =
  | 'none'
  | 'text'
  | 'texts'
  | 'status'
  | 'statuses'
  | 'date'
  | 'dateRange'
  | 'days'
  | 'number'
  | 'lists'
  | 'channels'
  | 'emailStatus'
  | 'emailStatuses';

const FIELD_LABELS: Record<BuilderField, string> = {
  firstName: 'First name',
  lastName: 'Last name',
  displayName: 'Display name',
  notes: 'Notes',
  status: 'Status',
  language: 'Language',
  timezone: 'Time zone',
  createdAt: 'Created',
  updatedAt: 'Updated',
  lastActivityAt: 'Last activity',
  tags: 'Tags',
  lists: 'Lists',
  channel: 'Channel',
  email: 'Email address',
  emailStatus: 'Email status',
};

interface FieldOption {
  value: BuilderField;
  label: string;
  group: string;
  operators: readonly SegmentOperator[];
}

/** The fields of one kind, all with that kind's operators. */
function kind(
  fields: readonly BuilderField[],
  group: string,
  operators: readonly SegmentOperator[],
): FieldOption[] {
  return fields.map((value) => ({ value, label: FIELD_LABELS[value], group, operators }));
}

export const FIELDS: FieldOption[] = [
  ...kind(segmentTextFieldValues, 'Contact', segmentTextOperatorValues),
  ...kind(segmentCodeFieldValues, 'Contact', segmentCodeOperatorValues),
  ...kind(segmentDateFieldValues, 'Dates', segmentDateOperatorValues),
  ...kind(['tags'], 'Membership', segmentTagsOperatorValues),
  ...kind(['lists'], 'Membership', segmentListsOperatorValues),
  ...kind(['channel'], 'Channels', segmentChannelOperatorValues),
  ...kind(['email'], 'Channels', segmentEmailOperatorValues),
  ...kind(['emailStatus'], 'Channels', segmentEmailStatusOperatorValues),
];

export const OPERATOR_LABELS: Record<SegmentOperator, string> = {
  equals: 'is',
  notEquals: 'is not',
  contains: 'contains',
  notContains: 'does not contain',
  startsWith: 'starts with',
  endsWith: 'ends with',
  isEmpty: 'is empty',
  isNotEmpty: 'is not empty',
  in: 'is any of',
  notIn: 'is none of',
  before: 'is before',
  after: 'is after',
  between: 'is between',
  withinLastDays: 'is within the last … days',
  notWithinLastDays: 'is not within the last … days',
  hasAny: 'has any of',
  hasAll: 'has all of',
  hasNone: 'has none of',
  subscribedTo: 'subscribed to any of',
  notSubscribedTo: 'not subscribed to any of',
  has: 'has any of',
  hasNot: 'has none of',
  gt: 'is more than',
  gte: 'is at least',
  lt: 'is less than',
  lte: 'is at most',
};

/** The operators of a field; a field the builder does not offer gets the text operators. */
export function operatorsOf(field: string): readonly SegmentOperator[] {
  return FIELDS.find((f) => f.value === field)?.operators ?? segmentTextOperatorValues;
}

export function valueKind(field: string, operator: string): ValueKind {
  if (operator === 'isEmpty' || operator === 'isNotEmpty') return 'none';
  const multi = operator === 'in' || operator === 'notIn';
  switch (field) {
    case 'status':
      return multi ? 'statuses' : 'status';
    case 'language':
    case 'timezone':
      return multi ? 'texts' : 'text';
    case 'createdAt':
    case 'updatedAt':
    case 'lastActivityAt':
      if (operator === 'between') return 'dateRange';
      return operator.endsWith('LastDays') ? 'days' : 'date';
    case 'tags':
      return 'texts';
    case 'lists':
      return 'lists';
    case 'channel':
      return 'channels';
    case 'emailStatus':
      return operator === 'in' ? 'emailStatuses' : 'emailStatus';
    default:
      return 'text';
  }
}

/** The value a condition starts with after its field or operator changes. */
export function initialValue(kind: ValueKind): unknown {
  switch (kind) {
    case 'none':
      return undefined;
    case 'texts':
    case 'statuses':
    case 'lists':
    case 'channels':
    case 'emailStatuses':
    case 'dateRange':
      return [];
    case 'days':
      return 30;
    case 'status':
      return 'active';
    default:
      return '';
  }
}

/**
 * A condition of `field` with `operator` and `value`. The builder pairs a field only with its own
 * operators (operatorsOf); a value still being entered is held back by isComplete, and the API
 * checks what is sent.
 */
export function conditionOf(field: string, operator: string, value: unknown): SegmentCondition {
  return { field, operator, value } as SegmentCondition;
}

/** `field` with `operator` (its first by default) and the value that operator starts with. */
export function newCondition(
  field = 'firstName',
  operator: string = operatorsOf(field)[0],
): SegmentCondition {
  return conditionOf(field, operator, initialValue(valueKind(field, operator)));
}

function isGroup(n: SegmentCondition | SegmentGroup): n is SegmentGroup {
  return 'conditions' in n;
}

/** Whether every condition has the value its operator needs (an incomplete rule is not previewed). */
export function isComplete(group: SegmentGroup): boolean {
  return (
    group.conditions.length > 0 &&
    group.conditions.every((n) => {
      if (isGroup(n)) return isComplete(n);
      const kind = valueKind(n.field, n.operator);
      if (kind === 'none') return true;
      if (kind === 'dateRange')
        return Array.isArray(n.value) && n.value.length === 2 && n.value.every(Boolean);
      if (Array.isArray(n.value)) return n.value.length > 0;
      return n.value !== '' && n.value !== null && n.value !== undefined;
    })
  );
}

export { isGroup };
