// Blind indexes of the contacts area: which encrypted columns carry one, how values are normalised.
import { fieldCipher, normaliseEmail } from '../crypto/field-encryption';
import {
  ContactEmail,
  ContactImessage,
  ContactPush,
  ContactSms,
  ContactTelegram,
  ContactWhatsapp,
} from './contact-channels.entity';
import { Contact, ENCRYPTED_DISPLAY_NAME_SQL } from './contact.entity';
import { normalisePhone } from './phone-number';

export type BlindIndexKind = 'email' | 'phone' | 'token';

export function normaliseForIndex(kind: BlindIndexKind, value: string): string {
  if (kind === 'email') return normaliseEmail(value);
  if (kind === 'phone') return normalisePhone(value) ?? value.trim();
  return value.trim();
}

/** The blind index a write stores (current key). */
export function blindIndexOf(kind: BlindIndexKind, value: string): string {
  return fieldCipher().blindIndex(normaliseForIndex(kind, value));
}

/** Every blind index the value may be stored under (current and old keys), for lookups. */
export function blindIndexCandidatesOf(kind: BlindIndexKind, value: string): string[] {
  return fieldCipher().blindIndexCandidates(normaliseForIndex(kind, value));
}

export interface EncryptedColumnSpec {
  /** Entity property and SQL column of the encrypted value. */
  property: string;
  column: string;
  /** Only some values of the column are encrypted: those matching this SQL condition. */
  encryptedWhen?: string;
  /** Its blind index, when it has one. */
  hash?: { property: string; column: string; kind: BlindIndexKind };
}

export interface EncryptedTableSpec {
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  entity: Function;
  table: string;
  columns: EncryptedColumnSpec[];
}

/** Every encrypted column of the contacts area (key rotation walks this list). */
export const ENCRYPTED_CONTACT_COLUMNS: EncryptedTableSpec[] = [
  {
    entity: Contact,
    table: 'contacts',
    columns: [
      {
        property: 'displayName',
        column: 'display_name',
        encryptedWhen: ENCRYPTED_DISPLAY_NAME_SQL,
      },
    ],
  },
  {
    entity: ContactEmail,
    table: 'contact_emails',
    columns: [
      {
        property: 'email',
        column: 'email',
        hash: { property: 'emailHash', column: 'email_hash', kind: 'email' },
      },
    ],
  },
  {
    entity: ContactSms,
    table: 'contact_sms',
    columns: [
      {
        property: 'phoneNumber',
        column: 'phone_number',
        hash: { property: 'phoneHash', column: 'phone_hash', kind: 'phone' },
      },
    ],
  },
  {
    entity: ContactWhatsapp,
    table: 'contact_whatsapp',
    columns: [
      {
        property: 'phoneNumber',
        column: 'phone_number',
        hash: { property: 'phoneHash', column: 'phone_hash', kind: 'phone' },
      },
    ],
  },
  {
    entity: ContactTelegram,
    table: 'contact_telegram',
    columns: [
      {
        property: 'phoneNumber',
        column: 'phone_number',
        hash: { property: 'phoneHash', column: 'phone_hash', kind: 'phone' },
      },
      { property: 'username', column: 'username' },
      {
        property: 'chatId',
        column: 'chat_id',
        hash: { property: 'chatIdHash', column: 'chat_id_hash', kind: 'token' },
      },
    ],
  },
  {
    entity: ContactImessage,
    table: 'contact_imessage',
    columns: [
      {
        property: 'appleId',
        column: 'apple_id',
        hash: { property: 'appleIdHash', column: 'apple_id_hash', kind: 'email' },
      },
      { property: 'phoneNumber', column: 'phone_number' },
    ],
  },
  {
    entity: ContactPush,
    table: 'contact_push',
    columns: [
      {
        property: 'deviceToken',
        column: 'device_token',
        hash: { property: 'deviceTokenHash', column: 'device_token_hash', kind: 'token' },
      },
    ],
  },
];
