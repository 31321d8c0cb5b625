// SQL of the contacts table: the one way contacts are created, updates, locks, email lookup.
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { OrgId } from '../common/org-id';
import { join, query, raw, sql } from '../database/sql';
import { ConflictError } from '../errors/domain-errors';
import { Contact, ContactStatus, displayNameColumn } from './contact.entity';

/** A unique violation on the email blind index: that address is another contact's already. */
export function isDuplicateEmail(err: unknown): boolean {
  const e = err as { code?: string; constraint?: string };
  return e?.code === '23505' && e.constraint === 'contact_emails_organization_id_email_hash_key';
}

/** What the API answers for a duplicate email (§4: 409). */
export function duplicateEmailConflict(): ConflictError {
  return new ConflictError('A contact with this email address already exists');
}

/** A contact to insert. */
export interface NewContact {
  id: string;
  firstName: string | null;
  lastName: string | null;
  /** As given: one that carries an address is stored encrypted (displayNameColumn). */
  displayName: string | null;
  timezone: string | null;
  language: string | null;
  status: ContactStatus | null;
  customFields: Record<string, unknown> | null;
  notes: string | null;
  lastActivityAt: Date | null;
  /**
   * The channel bits and sorted tag ids the records and tags the same transaction adds next give
   * the contact; absent, the triggers set them as records and tags are added.
   */
  channelMask?: number;
  tagIds?: string[];
}

/** Field values of a bulk create's update mode: null leaves the field as it is. */
export interface ContactOverwrite {
  id: string;
  firstName: string | null;
  lastName: string | null;
  timezone: string | null;
  language: string | null;
  status: ContactStatus | null;
  notes: string | null;
  /** Merged into the contact's custom fields. */
  customFields: Record<string, unknown> | null;
}

export type ContactLock = 'FOR UPDATE' | 'FOR NO KEY UPDATE' | 'FOR KEY SHARE';

/** The columns of the fields a contact update may change. */
const FIELD_COLUMNS = {
  firstName: 'first_name',
  lastName: 'last_name',
  displayName: 'display_name',
  timezone: 'timezone',
  language: 'language',
  status: 'status',
  customFields: 'custom_fields',
  notes: 'notes',
  lastActivityAt: 'last_activity_at',
} as const;

export type FieldChanges = Partial<
  Pick<
    Contact,
    | 'firstName'
    | 'lastName'
    | 'displayName'
    | 'timezone'
    | 'language'
    | 'status'
    | 'customFields'
    | 'notes'
    | 'lastActivityAt'
  >
>;

@Injectable()
export class ContactsRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** Inserts the contacts in one statement. */
  async insertMany(orgId: OrgId, contacts: NewContact[], em: EntityManager): Promise<void> {
    if (!contacts.length) return;
    const col = <T>(pick: (c: NewContact) => T) => contacts.map(pick);
    const tagged = contacts.flatMap((c) => (c.tagIds ?? []).map((tag) => [c.id, tag]));
    await query(
      em,
      sql`WITH tags AS (
            SELECT p.contact, array_agg(p.tag ORDER BY p.tag) AS ids
              FROM unnest(${tagged.map((p) => p[0])}::uuid[], ${tagged.map((p) => p[1])}::uuid[])
                   AS p(contact, tag)
             GROUP BY p.contact)
          INSERT INTO contacts (id, organization_id, first_name, last_name, display_name, timezone,
                                language, status, custom_fields, notes, last_activity_at,
                                channel_mask, tag_ids)
          SELECT u.id, ${orgId}::uuid, u.first, u.last, u.display, u.tz, u.lang, u.status,
                 u.custom::jsonb, u.notes, u.active, u.mask, coalesce(tags.ids, '{}')
            FROM unnest(${col((c) => c.id)}::uuid[], ${col((c) => c.firstName)}::text[],
                        ${col((c) => c.lastName)}::text[],
                        ${col((c) => displayNameColumn.to(c.displayName) as string | null)}::text[],
                        ${col((c) => c.timezone)}::text[], ${col((c) => c.language)}::text[],
                        ${col((c) => c.status)}::text[],
                        ${col((c) => (c.customFields ? JSON.stringify(c.customFields) : null))}::text[],
                        ${col((c) => c.notes)}::text[],
                        ${col((c) => c.lastActivityAt)}::timestamptz[],
                        ${col((c) => c.channelMask ?? 0)}::smallint[])
                 AS u(id, first, last, display, tz, lang, status, custom, notes, active, mask)
            LEFT JOIN tags ON tags.contact = u.id`,
    );
  }

  /** Changes the given fields of one contact (updatedAt moves). */
  async update(orgId: OrgId, id: string, changes: FieldChanges, em: EntityManager) {
    const set = (Object.keys(changes) as (keyof FieldChanges)[]).map((key) => {
      const value = changes[key];
      if (key === 'displayName') return sql`display_name = ${displayNameColumn.to(value)}`;
      if (key === 'customFields')
        return sql`custom_fields = ${value === null ? null : JSON.stringify(value)}::jsonb`;
      return sql`${raw(FIELD_COLUMNS[key])} = ${value}`;
    });
    if (!set.length) return;
    await query(
      em,
      sql`UPDATE contacts SET ${join(set, ', ')}, updated_at = now()
           WHERE organization_id = ${orgId}::uuid AND id = ${id}::uuid`,
    );
  }

  /** Update mode of a bulk create: each non-null value overwrites; custom fields are merged. */
  async overwriteMany(orgId: OrgId, rows: ContactOverwrite[], em: EntityManager): Promise<void> {
    if (!rows.length) return;
    const col = <T>(pick: (c: ContactOverwrite) => T) => rows.map(pick);
    await query(
      em,
      sql`UPDATE contacts c
             SET first_name = coalesce(u.first, c.first_name),
                 last_name = coalesce(u.last, c.last_name),
                 timezone = coalesce(u.tz, c.timezone),
                 language = coalesce(u.lang, c.language),
                 status = coalesce(u.status, c.status),
                 notes = coalesce(u.notes, c.notes),
                 custom_fields = CASE WHEN u.custom IS NULL THEN c.custom_fields
                                 ELSE coalesce(c.custom_fields, '{}'::jsonb) || u.custom::jsonb END,
                 updated_at = now()
            FROM unnest(${col((r) => r.id)}::uuid[], ${col((r) => r.firstName)}::text[],
                        ${col((r) => r.lastName)}::text[], ${col((r) => r.timezone)}::text[],
                        ${col((r) => r.language)}::text[], ${col((r) => r.status)}::text[],
                        ${col((r) => r.notes)}::text[],
                        ${col((r) => (r.customFields ? JSON.stringify(r.customFields) : null))}::text[])
                 AS u(id, first, last, tz, lang, status, notes, custom)
           WHERE c.id = u.id AND c.organization_id = ${orgId}::uuid`,
    );
  }

  /**
   * Locks the organization's contacts among `ids`, in id order (locks are always taken contacts →
   * lists → memberships, so the area's statements do not deadlock each other); answers the ids
   * found.
   */
  async lock(orgId: OrgId, ids: string[], mode: ContactLock, em: EntityManager) {
    const rows = await query<{ id: string }>(
      em,
      sql`SELECT id FROM contacts WHERE organization_id = ${orgId}::uuid AND id = ANY(${ids}::uuid[])
           ORDER BY id ${raw(mode)}`,
    );
    return rows.map((r) => r.id);
  }

  /** Deletes one contact (its records, tags and memberships go by cascade). */
  async delete(orgId: OrgId, id: string, em: EntityManager): Promise<void> {
    await query(
      em,
      sql`DELETE FROM contacts WHERE organization_id = ${orgId}::uuid AND id = ${id}::uuid`,
    );
  }

  /**
   * The organization's contacts owning one of these email blind indexes, by hash, locked (`mode`)
   * in id order so none is deleted (or changed) before the caller commits. Two statements, each
   * an index lookup: the email records by blind index, then their contacts by id. (As one join,
   * the planner hashes the organization's contacts once they outnumber the hashes, a cost that
   * grows with the organization.) A contact deleted between the two is not returned.
   *
   * The email records are one probe of the unique index per hash, whatever the statistics say
   * (`LIMIT 1` keeps the subquery from being pulled up into a join). With `email_hash = ANY(…)`
   * the planner weighs a thousand probes against reading the organization's range of the index,
   * and an organization an import is writing has far more rows than its statistics know (ANALYZE
   * lags behind): each batch would read them all, the import quadratic.
   */
  async idsByEmailHash(
    orgId: OrgId,
    hashes: string[],
    mode: ContactLock,
    em: EntityManager,
  ): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    if (!hashes.length) return found;
    const emails = await query<{ email_hash: string; contact_id: string }>(
      em,
      sql`SELECT h.email_hash, e.contact_id
            FROM unnest(${hashes}::text[]) AS h(email_hash),
                 LATERAL (SELECT contact_id FROM contact_emails
                           WHERE organization_id = ${orgId}::uuid AND email_hash = h.email_hash
                           LIMIT 1) e`,
    );
    if (!emails.length) return found;
    const locked = await query<{ id: string }>(
      em,
      sql`SELECT id FROM contacts
           WHERE organization_id = ${orgId}::uuid
             AND id = ANY(${[...new Set(emails.map((e) => e.contact_id))]}::uuid[])
           ORDER BY id ${raw(mode)}`,
    );
    const live = new Set(locked.map((r) => r.id));
    for (const e of emails) if (live.has(e.contact_id)) found.set(e.email_hash, e.contact_id);
    return found;
  }

  /** Whether one of these email blind indexes is the organization's already. */
  async emailTaken(orgId: OrgId, hashes: string[], em: EntityManager): Promise<boolean> {
    const rows = await query(
      em,
      sql`SELECT 1 FROM contact_emails
           WHERE organization_id = ${orgId}::uuid AND email_hash = ANY(${hashes}::text[]) LIMIT 1`,
    );
    return rows.length > 0;
  }
}
