// Seeds contacts, channel records, tags and list memberships with SQL, as the contacts tables store
// them (encrypted values and blind indexes), so segment tests do not depend on the contacts API.
import { INestApplication } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { fieldCipher, normaliseEmail } from '@app/domain';

export type SeedChannel = 'sms' | 'whatsapp' | 'telegram' | 'imessage' | 'push';

export interface SeedContact {
  key: string;
  firstName?: string | null;
  lastName?: string | null;
  displayName?: string | null;
  notes?: string | null;
  status?: 'active' | 'inactive' | 'archived' | null;
  language?: string | null;
  timezone?: string | null;
  customFields?: Record<string, unknown> | null;
  createdAt: string;
  updatedAt?: string;
  lastActivityAt?: string | null;
  tags?: string[];
  /** List name → membership status. */
  lists?: Record<string, 'subscribed' | 'unsubscribed'>;
  channels?: SeedChannel[];
  emails?: { email: string; status: string }[];
}

export interface Seeded {
  /** Contact id by key, and key by contact id. */
  ids: Record<string, string>;
  keys: Record<string, string>;
  /** List id by name. */
  lists: Record<string, string>;
}

function phone(): string {
  return '+4477009' + String(Math.floor(Math.random() * 1e5)).padStart(5, '0');
}

export async function seedContacts(
  app: INestApplication,
  organizationId: string,
  contacts: SeedContact[],
): Promise<Seeded> {
  const ds = app.get(DataSource);
  const cipher = fieldCipher();
  const enc = (v: string) => cipher.encrypt(v);
  const out: Seeded = { ids: {}, keys: {}, lists: {} };

  const listNames = [...new Set(contacts.flatMap((c) => Object.keys(c.lists ?? {})))];
  for (const name of listNames) {
    const [row] = await ds.query<{ id: string }[]>(
      `INSERT INTO contact_lists (organization_id, cuid, name, preferred_channels)
       VALUES ($1, $2, $3, '{email}') RETURNING id`,
      [organizationId, randomBytes(12).toString('hex'), name],
    );
    out.lists[name] = row.id;
  }
  const tagIds = new Map<string, string>();
  for (const name of new Set(contacts.flatMap((c) => c.tags ?? []))) {
    const [row] = await ds.query<{ id: string }[]>(
      `INSERT INTO contact_tags (organization_id, name) VALUES ($1, $2) RETURNING id`,
      [organizationId, name],
    );
    tagIds.set(name, row.id);
  }

  for (const c of contacts) {
    const [row] = await ds.query<{ id: string }[]>(
      `INSERT INTO contacts (organization_id, first_name, last_name, display_name, notes, status,
                             language, timezone, custom_fields, created_at, updated_at,
                             last_activity_at, tag_ids)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10, $11, $12,
               ARRAY(SELECT DISTINCT x FROM unnest($13::uuid[]) x ORDER BY x)) RETURNING id`,
      [
        organizationId,
        c.firstName ?? null,
        c.lastName ?? null,
        c.displayName ?? null,
        c.notes ?? null,
        c.status ?? null,
        c.language ?? null,
        c.timezone ?? null,
        c.customFields === undefined || c.customFields === null
          ? null
          : JSON.stringify(c.customFields),
        c.createdAt,
        c.updatedAt ?? c.createdAt,
        c.lastActivityAt ?? null,
        (c.tags ?? []).map((t) => tagIds.get(t)),
      ],
    );
    const id = row.id;
    out.ids[c.key] = id;
    out.keys[id] = c.key;
    for (const [list, status] of Object.entries(c.lists ?? {})) {
      await ds.query(
        `INSERT INTO contact_list_memberships (organization_id, contact_id, contact_list_id, status,
                                               unsubscribed_at)
         VALUES ($1, $2, $3, $4, CASE WHEN $4 = 'unsubscribed' THEN now() END)`,
        [organizationId, id, out.lists[list], status],
      );
    }
    for (const [i, e] of (c.emails ?? []).entries()) {
      await ds.query(
        `INSERT INTO contact_emails (organization_id, contact_id, email, email_hash, status, is_primary)
         VALUES ($1, $2, $3, $4, $5, $6)`,
        [
          organizationId,
          id,
          enc(e.email),
          cipher.blindIndex(normaliseEmail(e.email)),
          e.status,
          i === 0,
        ],
      );
    }
    for (const ch of c.channels ?? []) {
      const p = phone();
      const sql: Record<SeedChannel, [string, unknown[]]> = {
        sms: [
          `INSERT INTO contact_sms (organization_id, contact_id, phone_number, phone_hash, country_code)
           VALUES ($1, $2, $3, $4, 'GB')`,
          [enc(p), cipher.blindIndex(p)],
        ],
        whatsapp: [
          `INSERT INTO contact_whatsapp (organization_id, contact_id, phone_number, phone_hash, country_code)
           VALUES ($1, $2, $3, $4, 'GB')`,
          [enc(p), cipher.blindIndex(p)],
        ],
        telegram: [
          `INSERT INTO contact_telegram (organization_id, contact_id, phone_number, phone_hash, country_code)
           VALUES ($1, $2, $3, $4, 'GB')`,
          [enc(p), cipher.blindIndex(p)],
        ],
        imessage: [
          `INSERT INTO contact_imessage (organization_id, contact_id, apple_id, apple_id_hash)
           VALUES ($1, $2, $3, $4)`,
          [enc(`${c.key}@icloud.example`), cipher.blindIndex(`${c.key}@icloud.example`)],
        ],
        push: [
          `INSERT INTO contact_push (organization_id, contact_id, device_token, device_token_hash, platform)
           VALUES ($1, $2, $3, $4, 'ios')`,
          [enc(`tok-${c.key}`), cipher.blindIndex(`tok-${c.key}`)],
        ],
      };
      const [text, extra] = sql[ch];
      await ds.query(text, [organizationId, id, ...extra]);
    }
  }
  return out;
}
