// An import row made ready to write: values checked, blind indexes and ciphertexts computed.
import { blindIndexCandidatesOf, blindIndexOf } from '../contacts/blind-index';
import type { ParsedPhone } from '../contacts/contact.rules';
import { fieldCipher } from '../crypto/field-encryption';
import type { ImportRowValues } from './import-fields';

/** A phone number ready to store: encrypted value, blind index, country. */
export interface StoredPhone {
  enc: string;
  hash: string;
  countryCode: string;
}

/** A valid row with everything CPU-bound done (hashes, ciphertexts), before the batch's SQL. */
export interface PreparedRow {
  rowNo: number;
  values: ImportRowValues;
  /** Blind index under the current key; lookups use `emailCandidates` (all keys). */
  emailHash: string | null;
  emailCandidates: string[];
  emailEnc: string | null;
  sms: StoredPhone | null;
  whatsapp: StoredPhone | null;
  /** Telegram: the handle (encrypted) stored with the row's phone number. */
  telegram: (StoredPhone & { usernameEnc: string }) | null;
}

function storePhone(p: ParsedPhone): StoredPhone {
  const cipher = fieldCipher();
  return {
    enc: cipher.encrypt(p.e164),
    // A canonical e164 is what blindIndexOf's normalisation would return (without a 2nd parse).
    hash: p.canonical ? cipher.blindIndex(p.e164) : blindIndexOf('phone', p.e164),
    countryCode: p.countryCode,
  };
}

export function prepareRow(rowNo: number, values: ImportRowValues): PreparedRow {
  const cipher = fieldCipher();
  let emailHash: string | null = null;
  let emailCandidates: string[] = [];
  if (values.email) {
    emailCandidates = blindIndexCandidatesOf('email', values.email);
    emailHash =
      emailCandidates.length === 1 ? emailCandidates[0] : blindIndexOf('email', values.email);
  }
  const sms = values.phone ? storePhone(values.phone) : null;
  const whatsapp = values.whatsapp ? storePhone(values.whatsapp) : null;
  const telegramPhone = sms ?? whatsapp;
  return {
    rowNo,
    values,
    emailHash,
    emailCandidates,
    emailEnc: values.email ? cipher.encrypt(values.email) : null,
    sms,
    whatsapp,
    telegram:
      values.telegramUsername && telegramPhone
        ? { ...telegramPhone, usernameEnc: cipher.encrypt(values.telegramUsername) }
        : null,
  };
}
