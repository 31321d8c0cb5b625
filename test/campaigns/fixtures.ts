// Seeds lists of contacts straight into the tables (the contacts API is another issue's), with
// encrypted emails and blind indexes exactly as the contacts area stores them.
import { INestApplication } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { fieldCipher, generateCuid, normaliseEmail } from '@app/domain';

export interface SeededList {
  listId: string;
  contactIds: string[];
}

export interface SeedListOptions {
  /** Members that are subscribed and have a primary email. */
  subscribed: number;
  /** Extra members that unsubscribed (they must not receive the campaign). */
  unsubscribed?: number;
  /** Extra subscribed members without any email. */
  withoutEmail?: number;
}

export async function seedList(
  app: INestApplication,
  organizationId: string,
  opts: SeedListOptions,
): Promise<SeededList> {
  const ds = app.get(DataSource);
  const cipher = fieldCipher();
  const [{ id: listId }]: { id: string }[] = await ds.query(
    `INSERT INTO contact_lists (organization_id, cuid, name, status, preferred_channels, is_default)
     VALUES ($1, $2, $3, 'active', '{email}', false) RETURNING id`,
    [organizationId, generateCuid(), `List ${randomUUID().slice(0, 8)}`],
  );
  const contactIds: string[] = [];
  const add = async (n: number, status: 'subscribed' | 'unsubscribed', withEmail: boolean) => {
    if (n === 0) return;
    const ids = Array.from({ length: n }, () => randomUUID());
    await ds.query(
      `INSERT INTO contacts (id, organization_id, first_name, status)
       SELECT id, $2, 'Contact', 'active' FROM unnest($1::uuid[]) AS id`,
      [ids, organizationId],
    );
    if (withEmail) {
      const emails = ids.map((id) => `c-${id}@example.test`);
      await ds.query(
        `INSERT INTO contact_emails (organization_id, contact_id, email, email_hash, status, is_primary)
         SELECT $2, c, e, h, 'verified', true
           FROM unnest($1::uuid[], $3::text[], $4::text[]) AS t(c, e, h)`,
        [
          ids,
          organizationId,
          emails.map((e) => cipher.encrypt(e)),
          emails.map((e) => cipher.blindIndex(normaliseEmail(e))),
        ],
      );
    }
    await ds.query(
      `INSERT INTO contact_list_memberships (organization_id, contact_id, contact_list_id, status)
       SELECT $2, c, $3, $4 FROM unnest($1::uuid[]) AS c`,
      [ids, organizationId, listId, status],
    );
    await ds.query(
      `UPDATE contact_lists SET subscriber_count = subscriber_count + $2 WHERE id = $1`,
      [listId, status === 'subscribed' ? n : 0],
    );
    if (status === 'subscribed' && withEmail) contactIds.push(...ids);
  };
  await add(opts.subscribed, 'subscribed', true);
  await add(opts.unsubscribed ?? 0, 'unsubscribed', true);
  await add(opts.withoutEmail ?? 0, 'subscribed', false);
  return { listId, contactIds };
}

export function campaignBody(listId: string, extra: Record<string, unknown> = {}) {
  return {
    name: 'Spring sale',
    subject: 'Twenty percent off',
    html: '<p>Hello</p>',
    text: 'Hello',
    from: 'Shop <news@shop.example>',
    listId,
    ...extra,
  };
}
