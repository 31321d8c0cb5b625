// Compiles a validated rule tree (or a static membership) into one SQL predicate.
import type { OrgId } from '../common/org-id';
import { CHANNEL_INFO } from '../contacts/contact-channels.entity';
import { ENCRYPTED_DISPLAY_NAME_SQL } from '../contacts/contact.entity';
import { fieldCipher, normaliseEmail } from '../crypto/field-encryption';
import { escapeLike, join, raw, sql, Sql } from '../database/sql';
import type { ContactSelection } from './contact-selection';
import {
  CodeField,
  DateField,
  RuleCondition,
  RuleGroup,
  RuleNode,
  TextField,
  TextOperator,
} from './segment-rules';

/*
 * The predicate is over `contacts c`: every value is bound, and the only identifiers come from the
 * constant maps below, chosen by the tree's typed kinds, never from client text.
 *
 * Semantics (documented in docs/segments.md):
 * - text comparisons are case-insensitive; LIKE patterns escape `\`, `%` and `_`, so a value
 *   matches literally;
 * - every negation (notEquals, notContains, notIn, notWithinLastDays, hasNone, notSubscribedTo,
 *   hasNot) matches exactly the contacts its positive form does not, so a NULL column counts as
 *   "not equal" / "does not contain";
 * - isEmpty on a text means NULL or blank (spaces only); on a date, NULL.
 */
const TEXT_COLUMNS: Record<TextField, Sql> = {
  firstName: raw('c.first_name'),
  lastName: raw('c.last_name'),
  displayName: raw('c.display_name'),
  notes: raw('c.notes'),
};
const CODE_COLUMNS: Record<CodeField, Sql> = {
  status: raw('c.status'),
  language: raw('c.language'),
  timezone: raw('c.timezone'),
};
const DATE_COLUMNS: Record<DateField, Sql> = {
  createdAt: raw('c.created_at'),
  updatedAt: raw('c.updated_at'),
  lastActivityAt: raw('c.last_activity_at'),
};
const COMPARISONS = { gt: raw('>'), gte: raw('>='), lt: raw('<'), lte: raw('<=') };

const DAY_MS = 86_400_000;
/** True when the display name is stored in the clear (see contacts' displayNameColumn). */
const CLEAR_DISPLAY_NAME = raw(`NOT (c.${ENCRYPTED_DISPLAY_NAME_SQL})`);
const POSITIVE_OF: Partial<Record<TextOperator, TextOperator>> = {
  notEquals: 'equals',
  notContains: 'contains',
};
// A custom field compares as a number when it is a JSON number or a string spelling one; the
// exponent is bounded so a hostile value cannot overflow the numeric cast.
const NUMERIC_TEXT = raw(`'${String.raw`^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d{1,3})?\s*$`}'`);

export interface CompileContext {
  /** The instant `withinLastDays` counts back from (the injected Clock). */
  now: Date;
  /** The organization whose tags the tag names resolve to. */
  organizationId: OrgId;
}

/** The SQL predicate of a rule tree over the alias `c` (contacts), in parentheses. */
export function compileRules(tree: RuleGroup, ctx: CompileContext): Sql {
  return compileNode(tree, ctx);
}

/**
 * A selection of the organization's contacts as a predicate over `contacts c`: a static segment's
 * membership rows, or a rule tree evaluated at its `now`. The segments repository ANDs it after
 * `c.organization_id = <organization>`.
 */
export function selectionPredicate(organizationId: OrgId, selection: ContactSelection): Sql {
  if (selection.kind === 'rules') {
    return compileRules(selection.rules, { now: selection.now, organizationId });
  }
  return sql`EXISTS (SELECT 1 FROM contact_segment_members sm
                      WHERE sm.segment_id = ${selection.segmentId}::uuid AND sm.contact_id = c.id)`;
}

function compileNode(node: RuleNode, ctx: CompileContext): Sql {
  if (node.kind === 'group') {
    const joiner = node.operator === 'and' ? ' AND ' : ' OR ';
    return sql`(${join(
      node.conditions.map((n) => compileNode(n, ctx)),
      joiner,
    )})`;
  }
  return compileCondition(node, ctx);
}

/** The complement of a predicate that may be NULL: NULL counts as "does not match". */
function not(predicate: Sql): Sql {
  return sql`NOT coalesce(${predicate}, false)`;
}

function compileText(column: Sql, operator: TextOperator, value: string | null): Sql {
  const like = (pattern: string) => sql`${column} ILIKE ${pattern}::text ESCAPE '\\'`;
  switch (operator) {
    case 'equals':
      return sql`lower(${column}) = lower(${value}::text)`;
    case 'notEquals':
      return not(sql`lower(${column}) = lower(${value}::text)`);
    case 'contains':
      return like(`%${escapeLike(value!)}%`);
    case 'notContains':
      return not(like(`%${escapeLike(value!)}%`));
    case 'startsWith':
      return like(`${escapeLike(value!)}%`);
    case 'endsWith':
      return like(`%${escapeLike(value!)}`);
    case 'isEmpty':
      return sql`coalesce(btrim(${column}), '') = ''`;
    case 'isNotEmpty':
      return sql`coalesce(btrim(${column}), '') <> ''`;
  }
}

/**
 * The values lower-cased by PostgreSQL itself (an init plan, computed once per query), so they fold
 * exactly as the `lower(column)` they are compared with, whatever the characters.
 */
function lowered(values: string[]): Sql {
  return sql`ARRAY(SELECT DISTINCT lower(v) FROM unnest(${values}::text[]) AS v)`;
}

/**
 * The ids of the organization's tags with these names (case-insensitive), as an init plan computed
 * once per query. `contacts.tag_ids` holds each contact's tag ids, so a tag condition is a test
 * on the contact's own row: no join, and an index-only scan when the index carries tag_ids.
 */
function tagIds(names: string[], ctx: CompileContext): Sql {
  return sql`ARRAY(SELECT t.id FROM contact_tags t
     WHERE t.organization_id = ${ctx.organizationId}::uuid AND lower(t.name) = ANY(${lowered(names)}))`;
}

function compileCondition(cond: RuleCondition, ctx: CompileContext): Sql {
  switch (cond.kind) {
    case 'text': {
      const column = TEXT_COLUMNS[cond.field];
      const positiveOp = POSITIVE_OF[cond.operator];
      if (
        cond.field !== 'displayName' ||
        cond.operator === 'isEmpty' ||
        cond.operator === 'isNotEmpty'
      )
        return compileText(column, cond.operator, cond.value);
      // A display name carrying an email address is stored encrypted (§5): its ciphertext must
      // never match a fragment, so the positive operators skip it and the negations include it.
      const guarded = sql`(${CLEAR_DISPLAY_NAME} AND ${compileText(column, positiveOp ?? cond.operator, cond.value)})`;
      return positiveOp ? not(guarded) : guarded;
    }

    case 'code': {
      const col = CODE_COLUMNS[cond.field];
      // status values are a lower-case enum (exact, index-friendly); language and timezone codes
      // compare case-insensitively.
      const exact = cond.field === 'status';
      const lhs = exact ? col : sql`lower(${col})`;
      const one = (v: string) => (exact ? sql`${v}::text` : sql`lower(${v}::text)`);
      const many = (v: string[]) => (exact ? sql`${v}::text[]` : lowered(v));
      switch (cond.operator) {
        case 'equals':
          return sql`${lhs} = ${one(cond.value as string)}`;
        case 'notEquals':
          return not(sql`${lhs} = ${one(cond.value as string)}`);
        case 'in':
          return sql`${lhs} = ANY(${many(cond.value as string[])})`;
        case 'notIn':
          return not(sql`${lhs} = ANY(${many(cond.value as string[])})`);
      }
      break;
    }

    case 'date': {
      const col = DATE_COLUMNS[cond.field];
      const ts = (v: string) => sql`${v}::timestamptz`;
      const cutoff = () =>
        ts(new Date(ctx.now.getTime() - (cond.value as number) * DAY_MS).toISOString());
      switch (cond.operator) {
        case 'before':
          return sql`${col} < ${ts(cond.value as string)}`;
        case 'after':
          return sql`${col} > ${ts(cond.value as string)}`;
        case 'between': {
          const [from, to] = cond.value as [string, string];
          return sql`(${col} >= ${ts(from)} AND ${col} <= ${ts(to)})`;
        }
        case 'withinLastDays':
          return sql`${col} >= ${cutoff()}`;
        case 'notWithinLastDays':
          return not(sql`${col} >= ${cutoff()}`);
        case 'isEmpty':
          return sql`${col} IS NULL`;
        case 'isNotEmpty':
          return sql`${col} IS NOT NULL`;
      }
      break;
    }

    case 'tags':
      switch (cond.operator) {
        case 'hasAny':
          return sql`c.tag_ids && ${tagIds(cond.value, ctx)}`;
        case 'hasNone':
          return not(sql`c.tag_ids && ${tagIds(cond.value, ctx)}`);
        case 'hasAll': {
          // Tag names are unique per organization case-insensitively, so every distinct name
          // resolves to at most one tag: all of them must exist and all be on the contact.
          return sql`(c.tag_ids @> ${tagIds(cond.value, ctx)}
                   AND cardinality(${tagIds(cond.value, ctx)})
                       = (SELECT count(DISTINCT lower(v)) FROM unnest(${cond.value}::text[]) AS v))`;
        }
      }
      break;

    case 'lists': {
      const sub = sql`EXISTS (SELECT 1 FROM contact_list_memberships m
         WHERE m.contact_id = c.id AND m.organization_id = c.organization_id
           AND m.status = 'subscribed' AND m.contact_list_id = ANY(${cond.value}::uuid[]))`;
      return cond.operator === 'subscribedTo' ? sub : sql`NOT ${sub}`;
    }

    case 'channel': {
      // contacts.channel_mask holds one bit per channel the contact has records on, kept by the
      // contacts area's triggers in the same transaction as the records: a bit test, no semi-join.
      const bits = [...new Set(cond.value)].reduce((m, ch) => m | CHANNEL_INFO[ch].bit, 0);
      const any = sql`(c.channel_mask & ${bits}::smallint) <> 0`;
      return cond.operator === 'has' ? any : sql`NOT ${any}`;
    }

    case 'email': {
      if (cond.operator === 'equals') {
        const hashes = fieldCipher().blindIndexCandidates(normaliseEmail(cond.value!));
        return sql`EXISTS (SELECT 1 FROM contact_emails e
           WHERE e.organization_id = c.organization_id AND e.contact_id = c.id
             AND e.email_hash = ANY(${hashes}::text[]))`;
      }
      const any = sql`(c.channel_mask & ${CHANNEL_INFO.email.bit}::smallint) <> 0`;
      return cond.operator === 'isNotEmpty' ? any : sql`NOT ${any}`;
    }

    case 'emailStatus': {
      const statuses = Array.isArray(cond.value) ? cond.value : [cond.value];
      return sql`EXISTS (SELECT 1 FROM contact_emails e
         WHERE e.contact_id = c.id AND e.status = ANY(${statuses}::text[]))`;
    }

    case 'custom': {
      const col = sql`(c.custom_fields ->> ${cond.key}::text)`;
      switch (cond.operator) {
        case 'gt':
        case 'gte':
        case 'lt':
        case 'lte': {
          // CASE guarantees the cast only runs on text that spells a number.
          const num = sql`(CASE WHEN ${col} ~ ${NUMERIC_TEXT} THEN btrim(${col})::numeric END)`;
          return sql`${num} ${COMPARISONS[cond.operator]} ${String(cond.value)}::numeric`;
        }
        default:
          return compileText(col, cond.operator, cond.value as string | null);
      }
    }
  }
  throw new Error('unreachable rule condition');
}
