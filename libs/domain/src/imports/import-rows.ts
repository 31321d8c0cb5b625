// An import row made ready to write: values checked, blind indexes and ciphertexts computed.
import { blindIndexCandidatesOf, blindIndexOf } from '../contacts/blind-index';
import type { ParsedPhone } from '../contacts/contact.rules';
import type { NewContactRow, SealedPhoneNumber } from '../contacts/contacts-bulk.service';
import { fieldCipher } from '../crypto/field-encryption';
import type { ImportRowValues } from './import-fields';

/** A valid row with everything CPU-bound done (hashes, ciphertexts), before the batch's SQL. */
export interface PreparedRow {
  rowNo: number;
  /** The row as the contacts service's bulk create takes it. */
  contact: NewContactRow;
}

function sealPhone(p: ParsedPhone): SealedPhoneNumber {
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
  const contact: NewContactRow = {
    // Empty cells are no value: a new contact's status is then `active`, an update keeps it.
    fields: {
      firstName: values.firstName,
      lastName: values.lastName,
      timezone: values.timezone,
      language: values.language,
      status: values.status ?? undefined,
      notes: values.notes,
      customFields: values.customFields,
    },
    emailAddress: values.email,
    email: null,
    phones: {},
    tags: values.tags,
  };
  if (values.email) {
    const candidates = blindIndexCandidatesOf('email', values.email);
    contact.email = {
      enc: cipher.encrypt(values.email),
      hash: candidates.length === 1 ? candidates[0] : blindIndexOf('email', values.email),
      candidates,
    };
  }
  const sms = values.phone ? sealPhone(values.phone) : null;
  const whatsapp = values.whatsapp ? sealPhone(values.whatsapp) : null;
  if (sms) contact.phones.sms = sms;
  if (whatsapp) contact.phones.whatsapp = whatsapp;
  // Telegram: the handle (encrypted) stored with the row's phone number.
  const telegramPhone = sms ?? whatsapp;
  if (values.telegramUsername && telegramPhone)
    contact.phones.telegram = {
      ...telegramPhone,
      usernameEnc: cipher.encrypt(values.telegramUsername),
    };
  return { rowNo, contact };
}
