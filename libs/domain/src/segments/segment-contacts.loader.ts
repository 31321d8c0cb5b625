// Loads a page of contacts with their emails and tag names in three queries whatever the page size
// (the contacts, then every email and every tag of those contacts by `= ANY`), and maps them to the
// spec's Contact. Interim: once the contacts area's batch loader and Contact mapper are on main,
// this file is replaced by them.
import { DataSource } from 'typeorm';
import { fieldCipher } from '../crypto/field-encryption';

const ENCRYPTED_VALUE = /^v1:[0-9a-f]{8}:[A-Za-z0-9+/]+=*$/;

export interface SegmentContactRow {
  id: string;
  organizationId: string;
  firstName: string | null;
  lastName: string | null;
  displayName: string | null;
  timezone: string | null;
  language: string | null;
  status: string | null;
  customFields: Record<string, unknown> | null;
  notes: string | null;
  lastActivityAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface SegmentContactEmail {
  id: string;
  contactId: string;
  organizationId: string;
  email: string;
  status: string;
  isPrimary: boolean;
  bounceCount: number;
  complaintCount: number;
  verifiedAt: Date | null;
  lastBouncedAt: Date | null;
  lastComplainedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface SegmentContact extends SegmentContactRow {
  tags: string[];
  emails: SegmentContactEmail[];
}

/** The contact columns, aliased to the Contact's property names, for `SELECT ... FROM contacts c`. */
export const CONTACT_COLUMNS = `c.id, c.organization_id AS "organizationId", c.first_name AS "firstName",
  c.last_name AS "lastName", c.display_name AS "displayName", c.timezone, c.language, c.status,
  c.custom_fields AS "customFields", c.notes, c.last_activity_at AS "lastActivityAt",
  c.created_at AS "createdAt", c.updated_at AS "updatedAt"`;

/** Emails and tags of the given contacts (already scoped to the organization), in two queries. */
export async function loadSegmentContacts(
  ds: DataSource,
  organizationId: string,
  rows: SegmentContactRow[],
): Promise<SegmentContact[]> {
  if (!rows.length) return [];
  const ids = rows.map((r) => r.id);
  const [emails, tags] = await Promise.all([
    ds.query<(Omit<SegmentContactEmail, 'email'> & { email: string })[]>(
      `SELECT id, contact_id AS "contactId", organization_id AS "organizationId", email, status,
              is_primary AS "isPrimary", bounce_count AS "bounceCount",
              complaint_count AS "complaintCount", verified_at AS "verifiedAt",
              last_bounced_at AS "lastBouncedAt", last_complained_at AS "lastComplainedAt",
              created_at AS "createdAt", updated_at AS "updatedAt"
         FROM contact_emails
        WHERE organization_id = $1 AND contact_id = ANY($2::uuid[])
        ORDER BY created_at, id`,
      [organizationId, ids],
    ),
    ds.query<{ contactId: string; name: string }[]>(
      `SELECT ta.contact_id AS "contactId", t.name
         FROM contact_tag_assignments ta JOIN contact_tags t ON t.id = ta.tag_id
        WHERE ta.organization_id = $1 AND ta.contact_id = ANY($2::uuid[])
        ORDER BY lower(t.name)`,
      [organizationId, ids],
    ),
  ]);
  const cipher = fieldCipher();
  const emailsBy = new Map<string, SegmentContactEmail[]>();
  for (const e of emails) {
    const list = emailsBy.get(e.contactId) ?? [];
    list.push({ ...e, email: cipher.decrypt(e.email) });
    emailsBy.set(e.contactId, list);
  }
  const tagsBy = new Map<string, string[]>();
  for (const t of tags) {
    const list = tagsBy.get(t.contactId) ?? [];
    list.push(t.name);
    tagsBy.set(t.contactId, list);
  }
  return rows.map((r) => ({
    ...r,
    // A display name carrying an email address is stored encrypted (§5).
    displayName:
      r.displayName !== null && ENCRYPTED_VALUE.test(r.displayName)
        ? cipher.decrypt(r.displayName)
        : r.displayName,
    tags: tagsBy.get(r.id) ?? [],
    emails: emailsBy.get(r.id) ?? [],
  }));
}

/** The spec's Contact with emails and tag names. */
export function toSegmentContactResponse(c: SegmentContact) {
  return {
    id: c.id,
    organizationId: c.organizationId,
    firstName: c.firstName,
    lastName: c.lastName,
    displayName: c.displayName,
    timezone: c.timezone,
    language: c.language,
    status: c.status,
    customFields: c.customFields,
    notes: c.notes,
    lastActivityAt: c.lastActivityAt,
    tags: c.tags,
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
    emails: c.emails.map((e) => ({
      id: e.id,
      contactId: e.contactId,
      organizationId: e.organizationId,
      email: e.email,
      status: e.status,
      isPrimary: e.isPrimary,
      bounceCount: e.bounceCount,
      complaintCount: e.complaintCount,
      verifiedAt: e.verifiedAt,
      lastBouncedAt: e.lastBouncedAt,
      lastComplainedAt: e.lastComplainedAt,
      createdAt: e.createdAt,
      updatedAt: e.updatedAt,
    })),
  };
}
