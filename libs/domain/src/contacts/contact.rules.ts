// The field rules of a contact, once: used by the API's DTOs and by the import's row checks.
import {
  ArrayMaxSize,
  arrayMaxSize,
  IsEmail,
  isEmail,
  IsIn,
  isIn,
  IsLocale,
  isLocale,
  IsTimeZone,
  isTimeZone,
  MaxLength,
  maxLength,
  MinLength,
  minLength,
  ValidationOptions,
} from 'class-validator';
import { CONTACT_STATUSES, ContactStatus } from './contact.entity';
import { parsePhone } from './phone-number';

/** One constraint: its predicate, its message (`$property` is the field), its decorator. */
export interface Constraint {
  test: (value: string) => boolean;
  message: string;
  decorator: (options: ValidationOptions) => PropertyDecorator;
  /** What the constraint says in an OpenAPI schema. */
  schema?: Record<string, unknown>;
}

const email = (): Constraint => ({
  test: (v) => isEmail(v),
  message: '$property must be an email',
  decorator: (o) => IsEmail({}, o),
  schema: { format: 'email' },
});
const oneOf = (values: readonly string[]): Constraint => ({
  test: (v) => isIn(v, values),
  message: `$property must be one of the following values: ${values.join(', ')}`,
  decorator: (o) => IsIn(values, o),
});
const timeZone = (): Constraint => ({
  test: (v) => isTimeZone(v),
  message: '$property must be a valid IANA time-zone',
  decorator: (o) => IsTimeZone(o),
});
const locale = (): Constraint => ({
  test: (v) => isLocale(v),
  message: '$property must be locale',
  decorator: (o) => IsLocale(o),
});
const atLeast = (n: number): Constraint => ({
  test: (v) => minLength(v, n),
  message: `$property must be longer than or equal to ${n} characters`,
  decorator: (o) => MinLength(n, o),
  schema: { minLength: n },
});
const atMost = (n: number): Constraint => ({
  test: (v) => maxLength(v, n),
  message: `$property must be shorter than or equal to ${n} characters`,
  decorator: (o) => MaxLength(n, o),
  schema: { maxLength: n },
});

/** Tags a contact (or an import) may carry. */
export const TAGS_PER_CONTACT = 100;

/** The rules of the contact fields, each in the order its constraints are checked. */
export const CONTACT_RULES = {
  name: [atMost(200)],
  displayName: [atMost(400)],
  email: [email(), atMost(320)],
  status: [oneOf(CONTACT_STATUSES)],
  timezone: [timeZone()],
  language: [locale(), atMost(35)],
  notes: [atMost(10_000)],
  phoneNumber: [atLeast(8), atMost(32)],
  telegramUsername: [atLeast(1), atMost(64)],
  tagName: [atLeast(1), atMost(100)],
} satisfies Record<string, Constraint[]>;
export type ContactRuleName = keyof typeof CONTACT_RULES;

function messageOf(c: Constraint, field: string, each: boolean): string {
  return (each ? 'each value in ' : '') + c.message.replace('$property', field);
}

/**
 * A rule's class-validator decorators (`each`: for every item of an array), with the rule's
 * messages. Listed in reverse, as stacked decorators run, so errors come in the rule's order.
 */
export function ruleDecorators(name: ContactRuleName, each = false): PropertyDecorator[] {
  return [...(CONTACT_RULES[name] as Constraint[])]
    .reverse()
    .map((c) => c.decorator({ each, message: each ? `each value in ${c.message}` : c.message }));
}

/** A rule's OpenAPI keywords. */
export function ruleSchema(name: ContactRuleName): Record<string, unknown> {
  return Object.assign({}, ...(CONTACT_RULES[name] as Constraint[]).map((c) => c.schema ?? {}));
}

/** The class-validator decorator of the tag count, with its message. */
export function tagCountDecorator(): PropertyDecorator {
  return ArrayMaxSize(TAGS_PER_CONTACT, {
    message: `$property must contain no more than ${TAGS_PER_CONTACT} elements`,
  });
}

/** The message of the first constraint of the rule `value` breaks, or null when it passes. */
export function checkContactRule(
  name: ContactRuleName,
  value: string,
  field: string,
): string | null {
  const broken = CONTACT_RULES[name].find((c: Constraint) => !c.test(value));
  return broken ? messageOf(broken, field, false) : null;
}

/** Tag names (already split and trimmed, empties dropped): the message of the first problem. */
export function checkTagNames(names: string[], field = 'tags'): string | null {
  if (!arrayMaxSize(names, TAGS_PER_CONTACT))
    return `${field} must contain no more than ${TAGS_PER_CONTACT} elements`;
  for (const name of names) {
    const broken = CONTACT_RULES.tagName.find((c: Constraint) => !c.test(name));
    if (broken) return messageOf(broken, field, true);
  }
  return null;
}

/** A contact status as given in a CSV cell: any letter case. */
export function statusOf(raw: string): ContactStatus | null {
  const status = raw.trim().toLowerCase();
  return checkContactRule('status', status, 'status') ? null : (status as ContactStatus);
}

export interface ParsedPhone {
  e164: string;
  countryCode: string;
  /** normalisePhone(e164) === e164: the blind index can hash e164 without parsing it again. */
  canonical: boolean;
}

/** The message of a phone number that is not an international one. */
export function notAPhoneNumber(field: string): string {
  return `${field} must be an international phone number (E.164, e.g. +14155550100)`;
}

/**
 * A phone number of a CSV cell: the `phoneNumber` rule, then E.164 with a country derived from
 * its calling code (what the channel service derives when no countryCode is given).
 */
export function checkPhone(
  raw: string,
  field: string,
): { ok: true; value: ParsedPhone } | { ok: false; message: string } {
  const value = raw.trim();
  const broken = checkContactRule('phoneNumber', value, field);
  if (broken) return { ok: false, message: broken };
  const parts = parsePhone(value);
  if (!parts) return { ok: false, message: notAPhoneNumber(field) };
  if (!parts.country)
    return {
      ok: false,
      message: `${field}: the country cannot be derived from this number's calling code`,
    };
  return {
    ok: true,
    value: { e164: parts.e164, countryCode: parts.country, canonical: parts.canonical },
  };
}
