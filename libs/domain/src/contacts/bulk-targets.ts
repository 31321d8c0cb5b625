// How a bulk create's rows become the contacts it writes to (no I/O here).
import { v7 as uuidV7 } from 'uuid';
import { CHANNEL_INFO, CONTACT_CHANNELS } from './contact-channels.entity';
import type { PhoneChannel, SealedPhone } from './contact-channels.repository';
import type {
  ChannelRecordsInput,
  DuplicateMode,
  NewContactRow,
  SealedEmail,
  SealedPhoneNumber,
} from './contacts-bulk.service';
import type { ContactFields } from './contacts.service';

/** A contact the batch writes to: created by it, or an existing one a duplicate row matched. */
export interface BulkTarget {
  contactId: string;
  isNew: boolean;
  /** Field values to write (new) or to overwrite with (existing, update mode). */
  fields: ContactFields | null;
  emailAddress: string | null;
  email: SealedEmail | null;
  phones: Record<PhoneChannel, Map<string, SealedPhoneNumber>>;
  records: ChannelRecordsInput | undefined;
  tags: Set<string>;
  /** Sorted tag ids: the options' and the rows' own. */
  tagIds: string[];
}

export interface BulkPlan {
  targets: BulkTarget[];
  newCount: number;
  duplicateCount: number;
}

/** The fields a later duplicate row overwrites (non-empty values), custom fields aside. */
const MERGED_FIELDS = [
  'firstName',
  'lastName',
  'timezone',
  'language',
  'status',
  'notes',
] as const satisfies readonly (keyof ContactFields)[];

/** A name as stored: trimmed, and null when nothing is left. */
export function trimmedOrNull(v: string | null | undefined): string | null {
  const t = v?.trim();
  return t ? t : null;
}

export const PHONE_CHANNELS: PhoneChannel[] = ['sms', 'whatsapp', 'telegram'];

function target(contactId: string, isNew: boolean, row: NewContactRow | null): BulkTarget {
  return {
    contactId,
    isNew,
    fields: row ? { ...row.fields } : null,
    emailAddress: row?.emailAddress ?? null,
    email: row?.email ?? null,
    phones: { sms: new Map(), whatsapp: new Map(), telegram: new Map() },
    records: row?.records,
    tags: new Set(),
    tagIds: [],
  };
}

/** Update mode: a later row's non-empty values overwrite the earlier ones. */
function merge(into: ContactFields, from: ContactFields): void {
  for (const key of MERGED_FIELDS) {
    const v = from[key];
    if (v !== null && v !== undefined) (into as Record<string, unknown>)[key] = v;
  }
  if (from.customFields) into.customFields = { ...(into.customFields ?? {}), ...from.customFields };
}

function addPhones(t: BulkTarget, row: NewContactRow): void {
  for (const channel of PHONE_CHANNELS) {
    const phone = row.phones[channel];
    if (phone && !t.phones[channel].has(phone.hash)) t.phones[channel].set(phone.hash, phone);
  }
}

/** The email blind indexes to look up: every key's, of every row. */
export function hashesToLookUp(rows: NewContactRow[]): string[] {
  return [...new Set(rows.flatMap((r) => r.email?.candidates ?? []))];
}

/**
 * The contacts the rows go to, in row order: a row whose email is an existing contact's
 * (`existing`: blind index → contact id) or an earlier row's is a duplicate of it (update mode:
 * its values merged in file order, its phone numbers added); any other row is a new contact.
 */
export function planTargets(
  rows: NewContactRow[],
  existing: Map<string, string>,
  mode: DuplicateMode,
  newId: () => string = uuidV7,
): BulkPlan {
  const update = mode === 'update';
  const targets: BulkTarget[] = [];
  const byHash = new Map<string, BulkTarget>();
  const existingTargets = new Map<string, BulkTarget>();
  let newCount = 0;
  let duplicateCount = 0;
  for (const row of rows) {
    let t: BulkTarget | undefined;
    const existingId = row.email?.candidates.map((h) => existing.get(h)).find(Boolean);
    if (existingId) {
      t = existingTargets.get(existingId);
      if (!t) {
        t = target(existingId, false, null);
        existingTargets.set(existingId, t);
        targets.push(t);
      }
    } else if (row.email) {
      t = byHash.get(row.email.hash);
    }
    if (t) {
      duplicateCount++;
      if (update) {
        if (t.fields) merge(t.fields, row.fields);
        else t.fields = { ...row.fields };
        addPhones(t, row);
      }
    } else {
      newCount++;
      t = target(newId(), true, row);
      addPhones(t, row);
      if (row.email) byHash.set(row.email.hash, t);
      targets.push(t);
    }
    for (const tag of row.tags) t.tags.add(tag);
  }
  return { targets, newCount, duplicateCount };
}

/** The targets' sealed records of one phone channel, each contact's first one marked. */
export function phonesOf(targets: BulkTarget[], channel: PhoneChannel): SealedPhone[] {
  return targets.flatMap((t) =>
    [...t.phones[channel].values()].map((p, i) => ({
      contactId: t.contactId,
      enc: p.enc,
      hash: p.hash,
      countryCode: p.countryCode,
      first: i === 0,
      usernameEnc: p.usernameEnc,
    })),
  );
}

/** The channel bits a new contact's records set, known before they are inserted. */
export function channelMask(t: BulkTarget): number {
  let mask = t.email ? CHANNEL_INFO.email.bit : 0;
  for (const ch of PHONE_CHANNELS) if (t.phones[ch].size) mask |= CHANNEL_INFO[ch].bit;
  for (const ch of CONTACT_CHANNELS) if (t.records?.[ch]?.length) mask |= CHANNEL_INFO[ch].bit;
  return mask;
}
