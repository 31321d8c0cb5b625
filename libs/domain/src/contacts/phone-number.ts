// Phone numbers in E.164 (what is encrypted and blind-indexed) and the country a number belongs
// to when the caller does not say, through libphonenumber-js's numbering-plan metadata.
import { parsePhoneNumberFromString } from 'libphonenumber-js';

/** The number in E.164, or null when the input cannot be an international phone number. */
export function normalisePhone(input: string): string | null {
  let s = input.trim().replace(/[\s().\-/]/g, '');
  if (s.startsWith('00')) s = '+' + s.slice(2);
  if (!s.startsWith('+')) s = '+' + s;
  if (!/^\+[1-9]\d{7,14}$/.test(s)) return null;
  const parsed = parsePhoneNumberFromString(s);
  return parsed && parsed.isPossible() ? parsed.number : null;
}

/**
 * The ISO 3166-1 alpha-2 country of an E.164 number; for a range the plan does not place (test or
 * fictional numbers), the main country of its calling code; null for an unassigned code.
 */
export function countryOfPhone(e164: string): string | null {
  const parsed = parsePhoneNumberFromString(e164);
  if (!parsed) return null;
  return parsed.country ?? parsed.getPossibleCountries()[0] ?? null;
}
