// Seeds a list whose members carry channel records beyond email (§17), straight into the tables
// with values encrypted and blind-indexed exactly as the contacts area stores them.
import { INestApplication } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { blindIndexOf, fieldCipher, generateCuid } from '@app/domain';

/** The records one contact of a cohort has, each with its status. */
export interface CohortRecords {
  email?: 'verified' | 'unverified' | 'bounced' | 'complained' | 'suppressed';
  sms?: 'verified' | 'unverified' | 'invalid' | 'opted_out';
  whatsapp?: 'verified' | 'unverified' | 'blocked';
  /** A Telegram record whose chat was never linked through the bot's deep link. */
  telegram?: 'unlinked';
}

export interface SeededContact {
  id: string;
  cohort: string;
  email?: string;
  sms?: string;
  whatsapp?: string;
  telegram?: string;
}

export interface SeededChannelList {
  listId: string;
  contacts: SeededContact[];
}

/** Distinct numbers across every list this process seeds (the fakes are shared by a file). */
let serial = Math.floor(Math.random() * 1_000_000);
const nextNumber = (prefix: string) => `${prefix}${String(serial++ % 10_000_000).padStart(7, '0')}`;

const PHONE_PREFIX = { sms: '+1415', whatsapp: '+1628', telegram: '+4915' } as const;

/**
 * A list with `preferredChannels` whose subscribed members are the cohorts: `count` contacts each,
 * every one with its own address on each channel the cohort names.
 */
export async function seedChannelList(
  app: INestApplication,
  organizationId: string,
  preferredChannels: string[],
  cohorts: Record<string, { count: number; records: CohortRecords }>,
): Promise<SeededChannelList> {
  const ds = app.get(DataSource);
  const cipher = fieldCipher();
  const [{ id: listId }]: { id: string }[] = await ds.query(
    `INSERT INTO contact_lists (organization_id, cuid, name, status, preferred_channels, is_default)
     VALUES ($1, $2, $3, 'active', $4::text[], false) RETURNING id`,
    [organizationId, generateCuid(), `List ${randomUUID().slice(0, 8)}`, preferredChannels],
  );
  const contacts: SeededContact[] = [];
  for (const [cohort, { count, records }] of Object.entries(cohorts)) {
    for (let i = 0; i < count; i++) {
      const c: SeededContact = { id: randomUUID(), cohort };
      if (records.email) c.email = `c-${c.id}@example.test`;
      if (records.sms) c.sms = nextNumber(PHONE_PREFIX.sms);
      if (records.whatsapp) c.whatsapp = nextNumber(PHONE_PREFIX.whatsapp);
      if (records.telegram) c.telegram = nextNumber(PHONE_PREFIX.telegram);
      contacts.push(c);
    }
  }
  const ids = contacts.map((c) => c.id);
  await ds.query(
    `INSERT INTO contacts (id, organization_id, first_name, status)
     SELECT id, $2, 'Contact', 'active' FROM unnest($1::uuid[]) AS id`,
    [ids, organizationId],
  );
  const statusOf = (c: SeededContact, channel: keyof CohortRecords) =>
    cohorts[c.cohort].records[channel] as string;

  const emails = contacts.filter((c) => c.email);
  await ds.query(
    `INSERT INTO contact_emails (organization_id, contact_id, email, email_hash, status, is_primary)
     SELECT $1, c, e, h, s, true FROM unnest($2::uuid[], $3::text[], $4::text[], $5::text[]) AS t(c, e, h, s)`,
    [
      organizationId,
      emails.map((c) => c.id),
      emails.map((c) => cipher.encrypt(c.email!)),
      emails.map((c) => blindIndexOf('email', c.email!)),
      emails.map((c) => statusOf(c, 'email')),
    ],
  );
  for (const channel of ['sms', 'whatsapp', 'telegram'] as const) {
    const having = contacts.filter((c) => c[channel]);
    const table = channel === 'sms' ? 'contact_sms' : `contact_${channel}`;
    // A Telegram record is `active` until its chat blocks the bot; unlinked, its chat_id is null.
    await ds.query(
      `INSERT INTO ${table} (organization_id, contact_id, phone_number, phone_hash, country_code,
                             status, is_primary)
       SELECT $1, c, p, h, $6, s, true
         FROM unnest($2::uuid[], $3::text[], $4::text[], $5::text[]) AS t(c, p, h, s)`,
      [
        organizationId,
        having.map((c) => c.id),
        having.map((c) => cipher.encrypt(c[channel]!)),
        having.map((c) => blindIndexOf('phone', c[channel]!)),
        having.map((c) => (channel === 'telegram' ? 'active' : statusOf(c, channel))),
        channel === 'telegram' ? 'DE' : 'US',
      ],
    );
  }
  await ds.query(
    `INSERT INTO contact_list_memberships (organization_id, contact_id, contact_list_id, status)
     SELECT $2, c, $3, 'subscribed' FROM unnest($1::uuid[]) AS c`,
    [ids, organizationId, listId],
  );
  await ds.query(`UPDATE contact_lists SET subscriber_count = $2 WHERE id = $1`, [
    listId,
    ids.length,
  ]);
  return { listId, contacts };
}

/** Sending limits out of the way of a campaign of a few hundred recipients. */
export const liftLimits = (app: INestApplication, organizationId: string) =>
  app.get(DataSource).query(
    `UPDATE organizations SET limit_per_second = 100000, limit_per_minute = 100000,
              limit_per_hour = 1000000, limit_per_day = 1000000, limit_per_month = 10000000
        WHERE id = $1`,
    [organizationId],
  );
