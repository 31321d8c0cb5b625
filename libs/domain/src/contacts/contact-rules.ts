// The field rules of a contact, in one place: the contacts API DTOs take their limits from here and
// call the same class-validator predicates through their decorators; the import validates each
// CSV cell with these functions. A rule changed here changes for both.
import { isEmail, isLocale, isTimeZone } from 'class-validator';
import { CONTACT_STATUSES, ContactStatus } from './contact.entity';
import { parsePhone } from './phone-number';

export const CONTACT_LIMITS = {
  name: 200,
  displayName: 400,
  notes: 10_000,
  language: 35,
  email: 320,
  tagName: 100,
  tagsPerContact: 100,
  phoneMin: 8,
  phoneMax: 32,
  telegramUsername: 64,
} as const;

/** A problem with one value: the message names the field as the API would. */
export type RuleResult<T> = { ok: true; value: T } | { ok: false; message: string };

const ok = <T>(value: T): RuleResult<T> => ({ ok: true, value });
const fail = <T>(message: string): RuleResult<T> => ({ ok: false, message });

/** What `@IsEmail() @MaxLength(320)` accepts on the trimmed value. */
export function checkEmail(raw: string, field = 'email'): RuleResult<string> {
  const email = raw.trim();
  if (email.length > CONTACT_LIMITS.email || !isEmail(email))
    return fail(`${field} must be an email`);
  return ok(email);
}

/** `@IsIn(CONTACT_STATUSES)`; an import also accepts any letter case ("Active"). */
export function checkStatus(raw: string, field = 'status'): RuleResult<ContactStatus> {
  const status = raw.trim().toLowerCase();
  if (!(CONTACT_STATUSES as readonly string[]).includes(status))
    return fail(`${field} must be one of the following values: ${CONTACT_STATUSES.join(', ')}`);
  return ok(status as ContactStatus);
}

export interface ParsedPhone {
  e164: string;
  countryCode: string;
  /** normalisePhone(e164) === e164: the blind index can hash e164 without parsing it again. */
  canonical: boolean;
}

/** The channel services' rule: 8–32 characters, E.164 after normalisation, a derivable country. */
export function checkPhone(raw: string, field = 'phoneNumber'): RuleResult<ParsedPhone> {
  const value = raw.trim();
  const parts =
    value.length >= CONTACT_LIMITS.phoneMin && value.length <= CONTACT_LIMITS.phoneMax
      ? parsePhone(value)
      : null;
  if (!parts)
    return fail(`${field} must be an international phone number (E.164, e.g. +14155550100)`);
  if (!parts.country)
    return fail(`${field}: the country cannot be derived from this number's calling code`);
  return ok({ e164: parts.e164, countryCode: parts.country, canonical: parts.canonical });
}

export function checkName(raw: string, field: string): RuleResult<string> {
  const value = raw.trim();
  if (value.length > CONTACT_LIMITS.name)
    return fail(`${field} must be shorter than or equal to ${CONTACT_LIMITS.name} characters`);
  return ok(value);
}

export function checkNotes(raw: string, field = 'notes'): RuleResult<string> {
  if (raw.length > CONTACT_LIMITS.notes)
    return fail(`${field} must be shorter than or equal to ${CONTACT_LIMITS.notes} characters`);
  return ok(raw);
}

/** `@IsTimeZone()`: an IANA zone name. */
export function checkTimezone(raw: string, field = 'timezone'): RuleResult<string> {
  const value = raw.trim();
  if (!isTimeZone(value)) return fail(`${field} must be a valid IANA time-zone`);
  return ok(value);
}

/** `@IsLocale() @MaxLength(35)`. */
export function checkLanguage(raw: string, field = 'language'): RuleResult<string> {
  const value = raw.trim();
  if (value.length > CONTACT_LIMITS.language || !isLocale(value))
    return fail(`${field} must be locale`);
  return ok(value);
}

/** Tag names: each 1–100 characters, at most 100 per contact. */
export function checkTagNames(names: string[], field = 'tags'): RuleResult<string[]> {
  const clean = names.map((n) => n.trim()).filter(Boolean);
  if (clean.length > CONTACT_LIMITS.tagsPerContact)
    return fail(`${field} must contain no more than ${CONTACT_LIMITS.tagsPerContact} elements`);
  if (clean.some((n) => n.length > CONTACT_LIMITS.tagName))
    return fail(
      `each value in ${field} must be shorter than or equal to ${CONTACT_LIMITS.tagName} characters`,
    );
  return ok(clean);
}

export function checkTelegramUsername(raw: string, field = 'telegramUsername'): RuleResult<string> {
  const value = raw.trim();
  if (value.length > CONTACT_LIMITS.telegramUsername)
    return fail(
      `${field} must be shorter than or equal to ${CONTACT_LIMITS.telegramUsername} characters`,
    );
  return ok(value);
}
