// Compiles a validated rule tree (segment-rules.ts) into ONE parameterised SQL predicate over
// `contacts c`. Every value is a bound parameter; the only identifiers written into the SQL come
// from the constant maps below, chosen by the tree's typed kinds, never from client text.
//
// Semantics (documented in docs/segments.md):
// - text comparisons are case-insensitive; LIKE patterns escape `\`, `%` and `_`, so a value
//   matches literally;
// - every negation (notEquals, notContains, notIn, notWithinLastDays, hasNone, notSubscribedTo,
//   hasNot) matches exactly the contacts its positive form does not, so a NULL column counts as
//   "not equal" / "does not contain";
// - isEmpty on a text means NULL or blank (spaces only); on a date, NULL.
import { CHANNEL_INFO } from '../contacts/contact-channels.entity';
import { ENCRYPTED_DISPLAY_NAME_SQL } from '../contacts/contact.entity';
import { escapeLike } from '../contacts/contacts.repository';
import { fieldCipher, normaliseEmail } from '../crypto/field-encryption';
import {
  CodeField,
  DateField,
  RuleCondition,
  RuleGroup,
  RuleNode,
  TextField,
  TextOperator,
} from './segment-rules';

const TEXT_COLUMNS: Record<TextField, string> = {
  firstName: 'c.first_name',
  lastName: 'c.last_name',
  displayName: 'c.display_name',
  notes: 'c.notes',
};
const CODE_COLUMNS: Record<CodeField, string> = {
  status: 'c.status',
  language: 'c.language',
  timezone: 'c.timezone',
};
const DATE_COLUMNS: Record<DateField, string> = {
  createdAt: 'c.created_at',
  updatedAt: 'c.updated_at',
  lastActivityAt: 'c.last_activity_at',
};

const DAY_MS = 86_400_000;
/** True when the display name is stored in the clear (see contacts' displayNameColumn). */
const CLEAR_DISPLAY_NAME = `NOT (c.${ENCRYPTED_DISPLAY_NAME_SQL})`;
const POSITIVE_OF: Partial<Record<TextOperator, TextOperator>> = {
  notEquals: 'equals',
  notContains: 'contains',
};
// A custom field compares as a number when it is a JSON number or a string spelling one; the
// exponent is bounded so a hostile value cannot overflow the numeric cast.
const NUMERIC_TEXT = String.raw`^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d{1,3})?\s*$`;

/** Collects bound values and hands out their `$n` placeholders, starting after `offset`. */
export class SqlParams {
  readonly values: unknown[] = [];
  constructor(private readonly offset = 0) {}

  bind(value: unknown, cast: string): string {
    this.values.push(value);
    return `$${this.offset + this.values.length}::${cast}`;
  }
}

export interface CompileContext {
  params: SqlParams;
  /** The instant `withinLastDays` counts back from (the injected Clock). */
  now: Date;
  /** The organization whose tags the tag names resolve to. */
  organizationId: string;
}

interface State extends CompileContext {
  /** The organization's placeholder, bound once on first use. */
  org?: string;
}

/** The SQL predicate of a rule tree over the alias `c` (contacts). */
export function compileRules(tree: RuleGroup, ctx: CompileContext): string {
  return compileNode(tree, { ...ctx });
}

function compileNode(node: RuleNode, ctx: State): string {
  if (node.kind === 'group') {
    const joiner = node.operator === 'and' ? ' AND ' : ' OR ';
    return '(' + node.conditions.map((n) => compileNode(n, ctx)).join(joiner) + ')';
  }
  return compileCondition(node, ctx);
}

/** The complement of a predicate that may be NULL: NULL counts as "does not match". */
function not(predicate: string): string {
  return `NOT coalesce(${predicate}, false)`;
}

function compileText(
  column: string,
  operator: TextOperator,
  value: string | null,
  p: SqlParams,
): string {
  const like = (pattern: string) => `${column} ILIKE ${p.bind(pattern, 'text')} ESCAPE '\\'`;
  switch (operator) {
    case 'equals':
      return `lower(${column}) = lower(${p.bind(value, 'text')})`;
    case 'notEquals':
      return not(`lower(${column}) = lower(${p.bind(value, 'text')})`);
    case 'contains':
      return like(`%${escapeLike(value!)}%`);
    case 'notContains':
      return not(like(`%${escapeLike(value!)}%`));
    case 'startsWith':
      return like(`${escapeLike(value!)}%`);
    case 'endsWith':
      return like(`%${escapeLike(value!)}`);
    case 'isEmpty':
      return `coalesce(btrim(${column}), '') = ''`;
    case 'isNotEmpty':
      return `coalesce(btrim(${column}), '') <> ''`;
  }
}

function exists(sql: string): string {
  return `EXISTS (${sql})`;
}

/**
 * The values lower-cased by PostgreSQL itself (an init plan, computed once per query), so they fold
 * exactly as the `lower(column)` they are compared with, whatever the characters.
 */
function lowered(values: string[], p: SqlParams): string {
  return `ARRAY(SELECT DISTINCT lower(v) FROM unnest(${p.bind(values, 'text[]')}) AS v)`;
}

/**
 * The ids of the organization's tags with these names (case-insensitive), as an init plan computed
 * once per query. `contacts.tag_ids` holds each contact's tag ids (kept by triggers on
 * contact_tag_assignments, migration 1763700001400), so a tag condition is a test on the contact's
 * own row: no join, and an index-only scan when the index carries tag_ids.
 */
function tagIds(names: string[], ctx: State): string {
  ctx.org ??= ctx.params.bind(ctx.organizationId, 'uuid');
  return `ARRAY(SELECT t.id FROM contact_tags t
     WHERE t.organization_id = ${ctx.org} AND lower(t.name) = ANY(${lowered(names, ctx.params)}))`;
}

function compileCondition(cond: RuleCondition, ctx: State): string {
  const p = ctx.params;
  switch (cond.kind) {
    case 'text': {
      const column = TEXT_COLUMNS[cond.field];
      const positiveOp = POSITIVE_OF[cond.operator];
      if (
        cond.field !== 'displayName' ||
        cond.operator === 'isEmpty' ||
        cond.operator === 'isNotEmpty'
      )
        return compileText(column, cond.operator, cond.value, p);
      // A display name carrying an email address is stored encrypted (§5): its ciphertext must
      // never match a fragment, so the positive operators skip it and the negations include it.
      const guarded = `(${CLEAR_DISPLAY_NAME} AND ${compileText(column, positiveOp ?? cond.operator, cond.value, p)})`;
      return positiveOp ? not(guarded) : guarded;
    }

    case 'code': {
      const col = CODE_COLUMNS[cond.field];
      // status values are a lower-case enum (exact, index-friendly); language and timezone codes
      // compare case-insensitively.
      const exact = cond.field === 'status';
      const lhs = exact ? col : `lower(${col})`;
      const one = (v: string) => (exact ? p.bind(v, 'text') : `lower(${p.bind(v, 'text')})`);
      const many = (v: string[]) => (exact ? p.bind(v, 'text[]') : lowered(v, p));
      switch (cond.operator) {
        case 'equals':
          return `${lhs} = ${one(cond.value as string)}`;
        case 'notEquals':
          return not(`${lhs} = ${one(cond.value as string)}`);
        case 'in':
          return `${lhs} = ANY(${many(cond.value as string[])})`;
        case 'notIn':
          return not(`${lhs} = ANY(${many(cond.value as string[])})`);
      }
      break;
    }

    case 'date': {
      const col = DATE_COLUMNS[cond.field];
      const ts = (v: string) => p.bind(v, 'timestamptz');
      const cutoff = () =>
        ts(new Date(ctx.now.getTime() - (cond.value as number) * DAY_MS).toISOString());
      switch (cond.operator) {
        case 'before':
          return `${col} < ${ts(cond.value as string)}`;
        case 'after':
          return `${col} > ${ts(cond.value as string)}`;
        case 'between': {
          const [from, to] = cond.value as [string, string];
          return `(${col} >= ${ts(from)} AND ${col} <= ${ts(to)})`;
        }
        case 'withinLastDays':
          return `${col} >= ${cutoff()}`;
        case 'notWithinLastDays':
          return not(`${col} >= ${cutoff()}`);
        case 'isEmpty':
          return `${col} IS NULL`;
        case 'isNotEmpty':
          return `${col} IS NOT NULL`;
      }
      break;
    }

    case 'tags':
      switch (cond.operator) {
        case 'hasAny':
          return `c.tag_ids && ${tagIds(cond.value, ctx)}`;
        case 'hasNone':
          return not(`c.tag_ids && ${tagIds(cond.value, ctx)}`);
        case 'hasAll': {
          // Tag names are unique per organization case-insensitively, so every distinct name
          // resolves to at most one tag: all of them must exist and all be on the contact.
          return `(c.tag_ids @> ${tagIds(cond.value, ctx)}
                   AND cardinality(${tagIds(cond.value, ctx)})
                       = (SELECT count(DISTINCT lower(v)) FROM unnest(${p.bind(cond.value, 'text[]')}) AS v))`;
        }
      }
      break;

    case 'lists': {
      const sub = exists(`SELECT 1 FROM contact_list_memberships m
         WHERE m.contact_id = c.id AND m.organization_id = c.organization_id
           AND m.status = 'subscribed' AND m.contact_list_id = ANY(${p.bind(cond.value, 'uuid[]')})`);
      return cond.operator === 'subscribedTo' ? sub : `NOT ${sub}`;
    }

    case 'channel': {
      // contacts.channel_mask holds one bit per channel the contact has records on, kept by the
      // contacts area's triggers in the same transaction as the records: a bit test, no semi-join.
      const bits = [...new Set(cond.value)].reduce((m, ch) => m | CHANNEL_INFO[ch].bit, 0);
      const any = `(c.channel_mask & ${p.bind(bits, 'smallint')}) <> 0`;
      return cond.operator === 'has' ? any : `NOT ${any}`;
    }

    case 'email': {
      if (cond.operator === 'equals') {
        return exists(`SELECT 1 FROM contact_emails e
           WHERE e.organization_id = c.organization_id AND e.contact_id = c.id
             AND e.email_hash = ANY(${p.bind(fieldCipher().blindIndexCandidates(normaliseEmail(cond.value!)), 'text[]')})`);
      }
      const any = `(c.channel_mask & ${p.bind(CHANNEL_INFO.email.bit, 'smallint')}) <> 0`;
      return cond.operator === 'isNotEmpty' ? any : `NOT ${any}`;
    }

    case 'emailStatus': {
      const statuses = Array.isArray(cond.value) ? cond.value : [cond.value];
      return exists(`SELECT 1 FROM contact_emails e
         WHERE e.contact_id = c.id AND e.status = ANY(${p.bind(statuses, 'text[]')})`);
    }

    case 'custom': {
      const col = `(c.custom_fields ->> ${p.bind(cond.key, 'text')})`;
      switch (cond.operator) {
        case 'gt':
        case 'gte':
        case 'lt':
        case 'lte': {
          const sym = { gt: '>', gte: '>=', lt: '<', lte: '<=' }[cond.operator];
          // CASE guarantees the cast only runs on text that spells a number.
          const num = `(CASE WHEN ${col} ~ '${NUMERIC_TEXT}' THEN btrim(${col})::numeric END)`;
          return `${num} ${sym} ${p.bind(String(cond.value), 'numeric')}`;
        }
        default:
          return compileText(col, cond.operator, cond.value as string | null, p);
      }
    }
  }
  throw new Error('unreachable rule condition');
}
