// The rule language: the validator's faults and paths, the stored JSON, and the compiled SQL.
import { asOrgId } from '../common/org-id';
import { ValidationFailedError } from '../errors/domain-errors';
import { configureFieldEncryption, FieldCipher } from '../crypto/field-encryption';
import { sql } from '../database/sql';
import { rulesToJson } from './segment-rules';
import { compileRules } from './segment-rules.compiler';
import { parseRules } from './segment-rules.parser';

function faults(input: unknown) {
  try {
    parseRules(input);
  } catch (e) {
    if (e instanceof ValidationFailedError) return e.errors;
    throw e;
  }
  throw new Error('expected a validation failure');
}

const cond = (field: string, operator: string, value?: unknown) =>
  value === undefined ? { field, operator } : { field, operator, value };
const and = (...conditions: unknown[]) => ({ operator: 'and', conditions });

/** A chain of `depth` groups with one condition at the bottom. */
function nested(depth: number): unknown {
  let g: unknown = and(cond('status', 'equals', 'active'));
  for (let i = 1; i < depth; i++) g = and(g);
  return g;
}

describe('parseRules', () => {
  it('accepts a tree of depth 5 and 100 conditions', () => {
    expect(parseRules(nested(5)).kind).toBe('group');
    const hundred = and(...Array.from({ length: 100 }, () => cond('firstName', 'contains', 'a')));
    expect(parseRules(hundred).conditions).toHaveLength(100);
  });

  it('refuses depth 6 naming the path of the sixth group', () => {
    expect(faults(nested(6))).toEqual([
      {
        field: 'rules' + '.conditions.0'.repeat(5),
        rule: 'max',
        message: expect.stringContaining('5 levels'),
      },
    ]);
  });

  it('refuses 101 conditions naming the 101st, spread over nested groups too', () => {
    const flat = and(...Array.from({ length: 101 }, () => cond('notes', 'isEmpty')));
    expect(faults(flat)).toEqual([
      { field: 'rules.conditions.100', rule: 'max', message: expect.any(String) },
    ]);
    const spread = and(
      and(...Array.from({ length: 60 }, () => cond('notes', 'isEmpty'))),
      and(...Array.from({ length: 41 }, () => cond('notes', 'isEmpty'))),
    );
    expect(faults(spread)).toEqual([
      { field: 'rules.conditions.1.conditions.40', rule: 'max', message: expect.any(String) },
    ]);
  });

  it('names the path of every faulty node, one fault each', () => {
    const errors = faults({
      operator: 'and',
      conditions: [
        cond('firstName', 'equals', 'ok'),
        { operator: 'or', conditions: [cond('createdAt', 'before', 'yesterday')] },
        cond('status', 'like', 'x'),
        cond('first_name; DROP TABLE contacts', 'equals', 'x'),
        cond('tags', 'hasAny', 'vip'),
        { field: 'lists', operator: 'subscribedTo', value: ['not-a-uuid'], extra: 1 },
      ],
    });
    expect(errors.map((e) => [e.field, e.rule])).toEqual([
      ['rules.conditions.1.conditions.0.value', 'type'],
      ['rules.conditions.2.operator', 'enum'],
      ['rules.conditions.3.field', 'enum'],
      ['rules.conditions.4.value', 'type'],
      ['rules.conditions.5.extra', 'unknown'],
      ['rules.conditions.5.value.0', 'uuid'],
    ]);
  });

  it.each([
    [cond('customFields.a-b', 'equals', 'x'), 'rules.conditions.0.field', 'enum'],
    [cond('customFields.', 'equals', 'x'), 'rules.conditions.0.field', 'enum'],
    [cond('customFields.' + 'k'.repeat(65), 'equals', 'x'), 'rules.conditions.0.field', 'enum'],
    [cond('constructor', 'equals', 'x'), 'rules.conditions.0.field', 'enum'],
    [cond('__proto__', 'equals', 'x'), 'rules.conditions.0.field', 'enum'],
    [cond('customFields.age', 'gt', '5'), 'rules.conditions.0.value', 'type'],
    [cond('createdAt', 'withinLastDays', 0), 'rules.conditions.0.value', 'min'],
    [cond('createdAt', 'withinLastDays', 1.5), 'rules.conditions.0.value', 'type'],
    [cond('createdAt', 'between', ['2024-01-01']), 'rules.conditions.0.value', 'type'],
    [cond('createdAt', 'between', ['2024-02-01', '2024-01-01']), 'rules.conditions.0.value', 'min'],
    [cond('createdAt', 'after', '2024-02-30'), 'rules.conditions.0.value', 'type'],
    [cond('status', 'equals', 'gone'), 'rules.conditions.0.value', 'enum'],
    [cond('status', 'in', []), 'rules.conditions.0.value', 'minLength'],
    [cond('channel', 'has', ['fax']), 'rules.conditions.0.value.0', 'enum'],
    [cond('email', 'equals', 'nope'), 'rules.conditions.0.value', 'email'],
    [cond('emailStatus', 'in', ['verified', 'x']), 'rules.conditions.0.value.1', 'enum'],
    [cond('firstName', 'isEmpty', 'x'), 'rules.conditions.0.value', 'unknown'],
    [cond('firstName', 'equals'), 'rules.conditions.0.value', 'required'],
    [cond('firstName', 'equals', 'a\u0000b'), 'rules.conditions.0.value', 'type'],
    [cond('notes', 'contains', 'x'.repeat(1001)), 'rules.conditions.0.value', 'maxLength'],
  ])('refuses %j at %s (%s)', (c, field, rule) => {
    expect(faults(and(c)).map((e) => [e.field, e.rule])).toEqual([[field, rule]]);
  });

  it('refuses malformed groups', () => {
    expect(faults(null)).toEqual([
      { field: 'rules', rule: 'required', message: expect.any(String) },
    ]);
    expect(faults([]).map((e) => e.field)).toEqual(['rules']);
    expect(faults({ operator: 'xor', conditions: [] }).map((e) => [e.field, e.rule])).toEqual([
      ['rules.operator', 'enum'],
      ['rules.conditions', 'minLength'],
    ]);
    expect(faults(and(42)).map((e) => [e.field, e.rule])).toEqual([['rules.conditions.0', 'type']]);
  });

  it('normalises dates to instants (UTC when no offset) and keeps only defined keys', () => {
    const tree = parseRules(
      and(
        cond('createdAt', 'after', '2024-03-01'),
        cond('updatedAt', 'before', '2024-03-01T10:00'),
        cond('lastActivityAt', 'between', ['2024-01-01T00:00:00+02:00', '2024-01-02']),
        cond('notes', 'isEmpty', null),
      ),
    );
    expect(rulesToJson(tree)).toEqual({
      operator: 'and',
      conditions: [
        { field: 'createdAt', operator: 'after', value: '2024-03-01T00:00:00.000Z' },
        { field: 'updatedAt', operator: 'before', value: '2024-03-01T10:00:00.000Z' },
        {
          field: 'lastActivityAt',
          operator: 'between',
          value: ['2023-12-31T22:00:00.000Z', '2024-01-02T00:00:00.000Z'],
        },
        { field: 'notes', operator: 'isEmpty' },
      ],
    });
  });
});

const ORG = asOrgId('00000000-0000-4000-8000-000000000001');

describe('compileRules', () => {
  beforeAll(() => configureFieldEncryption(new FieldCipher(Buffer.alloc(32, 7))));

  const hostile = `'; drop table contacts; --`;

  it('binds every value and writes no client text into the SQL', () => {
    const tree = parseRules(
      and(
        cond('firstName', 'contains', hostile),
        cond('customFields.k', 'gt', 5),
        cond('tags', 'hasAll', [hostile, 'VIP', 'vip']),
        cond('language', 'in', ['EN', hostile]),
        cond('email', 'equals', 'a@b.co'),
        { operator: 'or', conditions: [cond('channel', 'hasNot', ['sms', 'push'])] },
      ),
    );
    const predicate = compileRules(tree, {
      now: new Date('2025-01-01T00:00:00Z'),
      organizationId: ORG,
    });
    expect(predicate.text).not.toContain('drop');
    expect(predicate.text).not.toContain('VIP');
    expect(predicate.text).not.toContain('a@b.co');
    expect(predicate.text).toMatch(/^\(.*\)$/s);
    expect(predicate.text).toContain(`ILIKE $1::text ESCAPE '\\'`);
    expect(predicate.values).toContainEqual(`%${hostile}%`);
    expect(predicate.values).toContainEqual([hostile, 'VIP', 'vip']);
    expect(predicate.values).toContainEqual('k');
    // Placeholders are numbered after the organization's $1 of the statement it is put in.
    const statement = sql`SELECT c.id FROM contacts c WHERE c.organization_id = ${ORG} AND ${predicate}`;
    expect(statement.text).toContain('$2::text');
    expect(statement.text).not.toContain('$1::');
    expect(statement.values).toEqual([ORG, ...predicate.values]);
  });

  it('counts withinLastDays back from the given clock', () => {
    const predicate = compileRules(parseRules(and(cond('createdAt', 'withinLastDays', 2))), {
      now: new Date('2025-01-03T12:00:00Z'),
      organizationId: ORG,
    });
    expect(predicate.values).toEqual(['2025-01-01T12:00:00.000Z']);
  });
});
