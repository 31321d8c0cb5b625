// The rule language of dynamic segments (§6) as the builder offers it: each field, its operators
// and the kind of value each operator takes.
import type { SegmentCondition, SegmentGroup } from '../../api/models';

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

const TEXT_OPS = [
  'equals',
  'notEquals',
  'contains',
  'notContains',
  'startsWith',
  'endsWith',
  'isEmpty',
  'isNotEmpty',
];
const CODE_OPS = ['equals', 'notEquals', 'in', 'notIn'];
const DATE_OPS = [
  'before',
  'after',
  'between',
  'withinLastDays',
  'notWithinLastDays',
  'isEmpty',
  'isNotEmpty',
];

export const FIELDS: { value: string; label: string; group: string; operators: string[] }[] = [
  { value: 'firstName', label: 'First name', group: 'Contact', operators: TEXT_OPS },
  { value: 'lastName', label: 'Last name', group: 'Contact', operators: TEXT_OPS },
  { value: 'displayName', label: 'Display name', group: 'Contact', operators: TEXT_OPS },
  { value: 'notes', label: 'Notes', group: 'Contact', operators: TEXT_OPS },
  { value: 'status', label: 'Status', group: 'Contact', operators: CODE_OPS },
  { value: 'language', label: 'Language', group: 'Contact', operators: CODE_OPS },
  { value: 'timezone', label: 'Time zone', group: 'Contact', operators: CODE_OPS },
  { value: 'createdAt', label: 'Created', group: 'Dates', operators: DATE_OPS },
  { value: 'updatedAt', label: 'Updated', group: 'Dates', operators: DATE_OPS },
  { value: 'lastActivityAt', label: 'Last activity', group: 'Dates', operators: DATE_OPS },
  { value: 'tags', label: 'Tags', group: 'Membership', operators: ['hasAny', 'hasAll', 'hasNone'] },
  {
    value: 'lists',
    label: 'Lists',
    group: 'Membership',
    operators: ['subscribedTo', 'notSubscribedTo'],
  },
  { value: 'channel', label: 'Channel', group: 'Channels', operators: ['has', 'hasNot'] },
  {
    value: 'email',
    label: 'Email address',
    group: 'Channels',
    operators: ['equals', 'isEmpty', 'isNotEmpty'],
  },
  { value: 'emailStatus', label: 'Email status', group: 'Channels', operators: ['equals', 'in'] },
];

export const OPERATOR_LABELS: Record<string, string> = {
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
};

export function operatorsOf(field: string): string[] {
  return FIELDS.find((f) => f.value === field)?.operators ?? TEXT_OPS;
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

export function newCondition(field = 'firstName'): SegmentCondition {
  const operator = operatorsOf(field)[0];
  return { field, operator, value: initialValue(valueKind(field, operator)) };
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
