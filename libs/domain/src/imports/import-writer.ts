// Writes one batch of import rows with set-based SQL inside the caller's transaction: duplicates
// found by email blind index (organization and earlier rows of the file), new contacts and their
// channel records as multi-row INSERT ... SELECT FROM unnest(...), field updates of duplicates,
// list memberships through ContactListsService (subscriberCount moves in the same transaction) and
// tag assignments. No per-row statement, no per-row event (§7: an import publishes none).
import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { EntityManager } from 'typeorm';
import { blindIndexCandidatesOf, blindIndexOf } from '../contacts/blind-index';
import { CHANNEL_INFO } from '../contacts/contact-channels.entity';
import { ContactListsService } from '../contacts/contact-lists.service';
import { ContactTagsService } from '../contacts/contact-tags.service';
import { deriveDisplayName, displayNameColumn } from '../contacts/contact.entity';
import type { ParsedPhone } from '../contacts/contact-rules';
import { fieldCipher } from '../crypto/field-encryption';
import type { DuplicateHandling } from './contact-import.entity';
import type { EmailHashFilter } from './email-hash-filter';
import type { ImportRowValues } from './import-fields';

/** A phone number ready to store: encrypted value, blind index, country. */
interface StoredPhone {
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

export interface BatchContext {
  organizationId: string;
  duplicateHandling: DuplicateHandling;
  listId: string | null;
  /** The import's tags (every row gets them). */
  tags: string[];
}

export interface BatchResult {
  newCount: number;
  duplicateCount: number;
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

/** CPU-bound part of a row (runs while the previous batch's transaction is in flight). */
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

/** One contact the batch writes to: created by it, or an existing one a duplicate row matched. */
interface Target {
  contactId: string;
  isNew: boolean;
  /** Field values to write (new) or to overwrite with (existing, update mode). */
  values: ImportRowValues | null;
  emailEnc: string | null;
  emailHash: string | null;
  sms: Map<string, StoredPhone>;
  whatsapp: Map<string, StoredPhone>;
  telegram: Map<string, StoredPhone & { usernameEnc: string }>;
  tags: Set<string>;
}

const FIELD_KEYS = [
  'firstName',
  'lastName',
  'timezone',
  'language',
  'status',
  'notes',
] as const satisfies readonly (keyof ImportRowValues)[];

/** Update mode: a later row's non-empty cells overwrite the earlier values. */
function merge(into: ImportRowValues, from: ImportRowValues): void {
  for (const key of FIELD_KEYS) {
    const v = from[key];
    if (v !== null) (into as unknown as Record<string, unknown>)[key] = v;
  }
  if (from.customFields) into.customFields = { ...(into.customFields ?? {}), ...from.customFields };
}

function addChannels(t: Target, row: PreparedRow): void {
  if (row.sms && !t.sms.has(row.sms.hash)) t.sms.set(row.sms.hash, row.sms);
  if (row.whatsapp && !t.whatsapp.has(row.whatsapp.hash))
    t.whatsapp.set(row.whatsapp.hash, row.whatsapp);
  if (row.telegram && !t.telegram.has(row.telegram.hash))
    t.telegram.set(row.telegram.hash, row.telegram);
}

@Injectable()
export class ImportWriter {
  constructor(
    private readonly lists: ContactListsService,
    private readonly tagsService: ContactTagsService,
  ) {}

  /**
   * @param filter the organization's known email hashes: only rows it may contain are looked up
   *   in the database (null: look every row up).
   */
  async writeBatch(
    em: EntityManager,
    ctx: BatchContext,
    rows: PreparedRow[],
    filter: EmailHashFilter | null = null,
  ): Promise<BatchResult> {
    const orgId = ctx.organizationId;
    const update = ctx.duplicateHandling === 'update';
    const candidates = filter
      ? rows.filter((r) => r.emailCandidates.some((h) => filter.mightContain(h)))
      : rows;
    const existing = await this.findExisting(em, orgId, candidates, update);

    const targets: Target[] = [];
    const byHash = new Map<string, Target>();
    const existingTargets = new Map<string, Target>();
    let newCount = 0;
    let duplicateCount = 0;
    for (const row of rows) {
      let target: Target | undefined;
      const existingId = row.emailCandidates.map((h) => existing.get(h)).find(Boolean);
      if (existingId) {
        target = existingTargets.get(existingId);
        if (!target) {
          target = {
            contactId: existingId,
            isNew: false,
            values: null,
            emailEnc: null,
            emailHash: null,
            sms: new Map(),
            whatsapp: new Map(),
            telegram: new Map(),
            tags: new Set(),
          };
          existingTargets.set(existingId, target);
          targets.push(target);
        }
      } else if (row.emailHash) {
        target = byHash.get(row.emailHash);
      }
      if (target) {
        duplicateCount++;
        if (update) {
          if (target.values) merge(target.values, row.values);
          else target.values = { ...row.values };
          addChannels(target, row);
        }
      } else {
        newCount++;
        target = {
          contactId: randomUUID(),
          isNew: true,
          values: { ...row.values },
          emailEnc: row.emailEnc,
          emailHash: row.emailHash,
          sms: new Map(),
          whatsapp: new Map(),
          telegram: new Map(),
          tags: new Set(),
        };
        addChannels(target, row);
        if (row.emailHash) byHash.set(row.emailHash, target);
        targets.push(target);
      }
      for (const tag of row.values.tags) target.tags.add(tag);
    }

    // Tag ids first: new contacts are inserted with their channel_mask and tag_ids already what
    // the records and tags inserted next make them, so the triggers that keep those columns find
    // nothing to rewrite.
    const tagIds = await this.resolveTags(em, orgId, targets, ctx.tags);
    const created = targets.filter((t) => t.isNew);
    const existingOnes = targets.filter((t) => !t.isNew);
    await this.insertContacts(em, orgId, created, tagIds);
    if (created.length) {
      await this.insertEmails(em, orgId, created);
      await this.insertChannels(em, orgId, created, true);
    }
    const changed = existingOnes.filter((t) => t.values);
    if (update) await this.updateContacts(em, orgId, changed);
    await this.insertChannels(em, orgId, existingOnes, false);
    if (ctx.listId) {
      // New contacts are this transaction's own; existing ones were locked by findExisting.
      await this.lists.subscribeIn(
        em,
        orgId,
        [ctx.listId],
        targets.map((t) => t.contactId),
        { contactsLocked: true },
      );
    }
    if (created.length) await this.assignTags(em, orgId, created, tagIds, false);
    await this.assignTags(em, orgId, existingOnes, tagIds, true);
    return { newCount, duplicateCount };
  }

  /**
   * Contacts of the organization owning one of the batch's emails, locked so none is deleted
   * (or, in update mode, changed) before the batch commits.
   */
  private async findExisting(
    em: EntityManager,
    orgId: string,
    rows: PreparedRow[],
    update: boolean,
  ): Promise<Map<string, string>> {
    const hashes = [...new Set(rows.flatMap((r) => r.emailCandidates))];
    const found = new Map<string, string>();
    if (!hashes.length) return found;
    const hits: { email_hash: string; contact_id: string }[] = await em.query(
      `SELECT e.email_hash, c.id AS contact_id
         FROM contact_emails e JOIN contacts c ON c.id = e.contact_id
        WHERE e.organization_id = $1 AND e.email_hash = ANY($2::text[])
        ORDER BY c.id
        FOR ${update ? 'NO KEY UPDATE' : 'KEY SHARE'} OF c`,
      [orgId, hashes],
    );
    for (const h of hits) found.set(h.email_hash, h.contact_id);
    return found;
  }

  private async insertContacts(
    em: EntityManager,
    orgId: string,
    created: Target[],
    tagIds: Map<Target, string[]>,
  ) {
    if (!created.length) return;
    const cols = {
      id: [] as string[],
      first: [] as (string | null)[],
      last: [] as (string | null)[],
      display: [] as string[],
      tz: [] as (string | null)[],
      lang: [] as (string | null)[],
      status: [] as string[],
      custom: [] as (string | null)[],
      notes: [] as (string | null)[],
      mask: [] as number[],
    };
    const tagged: { contact: string[]; tag: string[] } = { contact: [], tag: [] };
    for (const t of created) {
      const v = t.values!;
      cols.id.push(t.contactId);
      cols.first.push(v.firstName);
      cols.last.push(v.lastName);
      cols.display.push(
        displayNameColumn.to(deriveDisplayName(v.firstName, v.lastName, v.email)) as string,
      );
      cols.tz.push(v.timezone);
      cols.lang.push(v.language);
      cols.status.push(v.status ?? 'active');
      cols.custom.push(v.customFields ? JSON.stringify(v.customFields) : null);
      cols.notes.push(v.notes);
      cols.mask.push(
        (t.emailEnc ? CHANNEL_INFO.email.bit : 0) |
          (t.sms.size ? CHANNEL_INFO.sms.bit : 0) |
          (t.whatsapp.size ? CHANNEL_INFO.whatsapp.bit : 0) |
          (t.telegram.size ? CHANNEL_INFO.telegram.bit : 0),
      );
      for (const tag of tagIds.get(t) ?? []) {
        tagged.contact.push(t.contactId);
        tagged.tag.push(tag);
      }
    }
    // channel_mask is written here, with the bits of the records this batch inserts next: the
    // channel tables' triggers then find every bit already set and leave the new rows alone,
    // instead of rewriting each one once per channel.
    await em.query(
      `WITH tags AS (
           SELECT p.contact, array_agg(p.tag ORDER BY p.tag) AS ids
             FROM unnest($12::uuid[], $13::uuid[]) AS p(contact, tag)
            GROUP BY p.contact)
         INSERT INTO contacts (id, organization_id, first_name, last_name, display_name, timezone,
                             language, status, custom_fields, notes, channel_mask, tag_ids)
       SELECT u.id, $1, u.first, u.last, u.display, u.tz, u.lang, u.status, u.custom::jsonb,
              u.notes, u.mask, coalesce(tags.ids, '{}')
         FROM unnest($2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
                     $8::text[], $9::text[], $10::text[], $11::smallint[])
              AS u(id, first, last, display, tz, lang, status, custom, notes, mask)
         LEFT JOIN tags ON tags.contact = u.id`,
      [
        orgId,
        cols.id,
        cols.first,
        cols.last,
        cols.display,
        cols.tz,
        cols.lang,
        cols.status,
        cols.custom,
        cols.notes,
        cols.mask,
        tagged.contact,
        tagged.tag,
      ],
    );
  }

  private async insertEmails(em: EntityManager, orgId: string, created: Target[]) {
    const withEmail = created.filter((t) => t.emailEnc);
    if (withEmail.length) {
      await em.query(
        `INSERT INTO contact_emails (id, organization_id, contact_id, email, email_hash, status, is_primary)
         SELECT u.id, $1, u.c, u.e, u.h, 'unverified', true
           FROM unnest($2::uuid[], $3::text[], $4::text[], $5::uuid[]) AS u(c, e, h, id)`,
        [
          orgId,
          withEmail.map((t) => t.contactId),
          withEmail.map((t) => t.emailEnc),
          withEmail.map((t) => t.emailHash),
          withEmail.map(() => randomUUID()),
        ],
      );
    }
  }

  /** Update mode: non-empty cells overwrite the contact's fields; custom fields are merged. */
  private async updateContacts(em: EntityManager, orgId: string, changed: Target[]) {
    if (!changed.length) return;
    const col = <K extends keyof ImportRowValues>(k: K) => changed.map((t) => t.values![k]);
    await em.query(
      `UPDATE contacts c
          SET first_name = coalesce(u.first, c.first_name),
              last_name = coalesce(u.last, c.last_name),
              timezone = coalesce(u.tz, c.timezone),
              language = coalesce(u.lang, c.language),
              status = coalesce(u.status, c.status),
              notes = coalesce(u.notes, c.notes),
              custom_fields = CASE WHEN u.custom IS NULL THEN c.custom_fields
                                   ELSE coalesce(c.custom_fields, '{}'::jsonb) || u.custom::jsonb END,
              updated_at = now()
         FROM unnest($2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
                     $8::text[], $9::text[]) AS u(id, first, last, tz, lang, status, notes, custom)
        WHERE c.id = u.id AND c.organization_id = $1`,
      [
        orgId,
        changed.map((t) => t.contactId),
        col('firstName'),
        col('lastName'),
        col('timezone'),
        col('language'),
        col('status'),
        col('notes'),
        changed.map((t) =>
          t.values!.customFields ? JSON.stringify(t.values!.customFields) : null,
        ),
      ],
    );
  }

  /**
   * SMS, WhatsApp and Telegram records of new contacts (`isNew`) or of existing ones, never
   * both in one call. A new contact's first record of a channel is primary; on
   * an existing contact a number it already has is not added again, and an added record is
   * primary only when the contact had none on that channel.
   */
  private async insertChannels(
    em: EntityManager,
    orgId: string,
    targets: Target[],
    isNew: boolean,
  ) {
    const specs = [
      {
        table: 'contact_sms',
        pick: (t: Target) => t.sms,
        extraCols: ', status',
        extraVals: `, 'unverified'`,
      },
      {
        table: 'contact_whatsapp',
        pick: (t: Target) => t.whatsapp,
        extraCols: ', status, is_business_account',
        extraVals: `, 'unverified', false`,
      },
    ];
    for (const spec of specs) {
      const c: string[] = [];
      const p: string[] = [];
      const h: string[] = [];
      const cc: string[] = [];
      const primary: boolean[] = [];
      for (const t of targets) {
        let first = true;
        for (const phone of spec.pick(t).values()) {
          c.push(t.contactId);
          p.push(phone.enc);
          h.push(phone.hash);
          cc.push(phone.countryCode);
          primary.push(first);
          first = false;
        }
      }
      if (!c.length) continue;
      await em.query(
        `INSERT INTO ${spec.table} (id, organization_id, contact_id, phone_number, phone_hash,
                                    country_code, is_primary${spec.extraCols})
         SELECT u.id, $1, u.c, u.p, u.h, u.cc,
                ${isNew ? 'u.pr' : `u.pr AND NOT EXISTS (SELECT 1 FROM ${spec.table} x WHERE x.contact_id = u.c)`}
                ${spec.extraVals}
           FROM unnest($2::uuid[], $3::text[], $4::text[], $5::text[], $6::boolean[], $7::uuid[])
                AS u(c, p, h, cc, pr, id)
          ${isNew ? '' : `WHERE NOT EXISTS (SELECT 1 FROM ${spec.table} x WHERE x.contact_id = u.c AND x.phone_hash = u.h)`}`,
        [orgId, c, p, h, cc, primary, c.map(() => randomUUID())],
      );
    }
    const c: string[] = [];
    const p: string[] = [];
    const h: string[] = [];
    const cc: string[] = [];
    const u: string[] = [];
    const primary: boolean[] = [];
    for (const t of targets) {
      let first = true;
      for (const tg of t.telegram.values()) {
        c.push(t.contactId);
        p.push(tg.enc);
        h.push(tg.hash);
        cc.push(tg.countryCode);
        u.push(tg.usernameEnc);
        primary.push(first);
        first = false;
      }
    }
    if (!c.length) return;
    await em.query(
      `INSERT INTO contact_telegram (id, organization_id, contact_id, phone_number, phone_hash,
                                     country_code, username, status, is_primary)
       SELECT u.id, $1, u.c, u.p, u.h, u.cc, u.un, 'active',
              ${isNew ? 'u.pr' : 'u.pr AND NOT EXISTS (SELECT 1 FROM contact_telegram x WHERE x.contact_id = u.c)'}
         FROM unnest($2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[], $7::boolean[], $8::uuid[])
              AS u(c, p, h, cc, un, pr, id)
        ${isNew ? '' : 'WHERE NOT EXISTS (SELECT 1 FROM contact_telegram x WHERE x.contact_id = u.c AND x.phone_hash = u.h)'}`,
      [orgId, c, p, h, cc, u, primary, c.map(() => randomUUID())],
    );
  }

  /**
   * The tag ids of each contact of the batch (sorted): the import's tags on every one, each
   * row's own tags on its contact. Creates the tags the organization does not have yet.
   */
  private async resolveTags(
    em: EntityManager,
    orgId: string,
    targets: Target[],
    importTags: string[],
  ): Promise<Map<Target, string[]>> {
    const byTarget = new Map<Target, string[]>();
    const names = new Set<string>(importTags);
    for (const t of targets) for (const n of t.tags) names.add(n);
    if (!names.size) return byTarget;
    const tags = await this.tagsService.ensure(em, orgId, [...names]);
    const idOf = new Map(tags.map((t) => [t.name.toLowerCase(), t.id.toLowerCase()]));
    const importTagIds = importTags
      .map((n) => idOf.get(n.toLowerCase()))
      .filter((id): id is string => !!id);
    for (const t of targets) {
      const ids = new Set<string>(importTagIds);
      for (const n of t.tags) {
        const id = idOf.get(n.toLowerCase());
        if (id) ids.add(id);
      }
      if (ids.size) byTarget.set(t, [...ids].sort());
    }
    return byTarget;
  }

  /**
   * Tag assignments of the batch's contacts (new ones already carry them in tag_ids).
   * `existing`: the contacts may have some of them already (ON CONFLICT DO NOTHING); a new
   * contact has none and its ids are distinct, so its rows go in as a plain insert (a
   * speculative insertion costs an extra index probe and WAL record per row).
   */
  private async assignTags(
    em: EntityManager,
    orgId: string,
    targets: Target[],
    tagIds: Map<Target, string[]>,
    existing: boolean,
  ): Promise<void> {
    const contactIds: string[] = [];
    const ids: string[] = [];
    for (const t of targets) {
      for (const id of tagIds.get(t) ?? []) {
        contactIds.push(t.contactId);
        ids.push(id);
      }
    }
    if (!contactIds.length) return;
    await em.query(
      `INSERT INTO contact_tag_assignments (contact_id, tag_id, organization_id)
       SELECT u.c, u.t, $1 FROM unnest($2::uuid[], $3::uuid[]) AS u(c, t) ORDER BY 1, 2
       ${existing ? 'ON CONFLICT (contact_id, tag_id) DO NOTHING' : ''}`,
      [orgId, contactIds, ids],
    );
  }
}
