// Phone numbers in E.164 and the country a number belongs to (libphonenumber-js's metadata).
import { parsePhoneNumberFromString } from 'libphonenumber-js';

/** The string normalisePhone parses: separators dropped, `00` → `+`, `+` added; null if no number. */
function cleaned(input: string): string | null {
  let s = input.trim().replace(/[\s().\-/]/g, '');
  if (s.startsWith('00')) s = '+' + s.slice(2);
  if (!s.startsWith('+')) s = '+' + s;
  return /^\+[1-9]\d{7,14}$/.test(s) ? s : null;
}

/** The number in E.164, or null when the input cannot be an international phone number. */
export function normalisePhone(input: string): string | null {
  const s = cleaned(input);
  if (!s) return null;
  const parsed = parsePhoneNumberFromString(s);
  return parsed && parsed.isPossible() ? parsed.number : null;
}

export interface PhoneParts {
  /** normalisePhone(input). */
  e164: string;
  /** countryOfPhone(e164). */
  country: string | null;
  /** normalisePhone(e164) === e164 (so a blind index may hash e164 as it is). */
  canonical: boolean;
}

/**
 * normalisePhone and countryOfPhone of the result with one libphonenumber parse instead of two
 * (three with the blind index's normalisation): when the E.164 form is the very string that was
 * parsed, parsing it again would give the same answer. Null when normalisePhone gives null.
 */
export function parsePhone(input: string): PhoneParts | null {
  const s = cleaned(input);
  if (!s) return null;
  const parsed = parsePhoneNumberFromString(s);
  if (!parsed || !parsed.isPossible()) return null;
  const e164 = parsed.number;
  if (e164 !== s) return { e164, country: countryOfPhone(e164), canonical: false };
  return {
    e164,
    country: parsed.country ?? parsed.getPossibleCountries()[0] ?? null,
    canonical: true,
  };
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
