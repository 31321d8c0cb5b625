// Tracked links of an SMS (§17): each http(s) link of the text becomes `{PUBLIC_BASE_URL}/t/c/{id}`
// with a short random id, stored with the message, its recipient and the link's target, so a link
// costs a few segments' characters instead of a signed token's hundred. The same message keeps the
// same links over its retries.
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomInt } from 'node:crypto';
import { DataSource } from 'typeorm';
import { asOrgId, type OrgId } from '../../common/org-id';
import { fieldCipher } from '../../crypto/field-encryption';
import { join, query, sql } from '../../database/sql';
import { MAX_TRACKED_URL_LENGTH } from './tracking-token';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** 12 base62 characters: 71 bits, never found by trying. */
export const SHORT_LINK_LENGTH = 12;
export const SHORT_LINK_ID = /^[0-9A-Za-z]{12}$/;
/** The links of a text: http or https up to the next space (trailing punctuation left out). */
const LINK = /\bhttps?:\/\/[^\s<>"']+[^\s<>"'.,;:!?)\]}]/gi;
/** Links per text that are rewritten; more go out as written. */
const MAX_LINKS = 10;

export interface ShortLinkTarget {
  organizationId: OrgId;
  messageId: string;
  recipientIndex: number;
  url: string;
}

function newId(): string {
  let id = '';
  for (let i = 0; i < SHORT_LINK_LENGTH; i++) id += ALPHABET[randomInt(ALPHABET.length)];
  return id;
}

@Injectable()
export class ShortLinks {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** The text with its links through `base/t/c/{id}`, the links stored (once per message). */
  async rewrite(
    text: string,
    base: string,
    m: { organizationId: OrgId; messageId: string; recipientIndex: number },
  ): Promise<string> {
    const urls = [...text.matchAll(LINK)]
      .map((x) => x[0])
      .filter((u) => u.length <= MAX_TRACKED_URL_LENGTH)
      .slice(0, MAX_LINKS);
    if (!urls.length) return text;
    const cipher = fieldCipher();
    const rows = urls.map(
      (url, ordinal) =>
        sql`(${newId()}, ${m.organizationId}::uuid, ${m.messageId}::uuid, ${m.recipientIndex},
             ${ordinal}, ${cipher.encrypt(url)})`,
    );
    await query(
      this.ds,
      sql`INSERT INTO short_links (id, organization_id, message_id, recipient_idx, ordinal, url)
          VALUES ${join(rows)}
          ON CONFLICT (message_id, recipient_idx, ordinal) DO NOTHING`,
    );
    const kept = await query<{ id: string; ordinal: number }>(
      this.ds,
      sql`SELECT id, ordinal FROM short_links
           WHERE organization_id = ${m.organizationId}::uuid AND message_id = ${m.messageId}::uuid
             AND recipient_idx = ${m.recipientIndex}`,
    );
    const idOf = new Map(kept.map((k) => [k.ordinal, k.id]));
    let ordinal = 0;
    return text.replace(LINK, (url) => {
      if (ordinal >= urls.length || url !== urls[ordinal]) return url;
      const id = idOf.get(ordinal++);
      return id ? `${base}/t/c/${id}` : url;
    });
  }

  /** Where a short link leads and whose it is; null for an id we never made. */
  async resolve(id: string): Promise<ShortLinkTarget | null> {
    if (!SHORT_LINK_ID.test(id)) return null;
    const [row] = await query<{
      organization_id: string;
      message_id: string;
      recipient_idx: number;
      url: string;
    }>(
      this.ds,
      sql`SELECT organization_id, message_id, recipient_idx, url FROM short_links WHERE id = ${id}`,
    );
    if (!row) return null;
    return {
      // The link row we stored with its message: the message's organization.
      organizationId: asOrgId(row.organization_id),
      messageId: row.message_id,
      recipientIndex: row.recipient_idx,
      url: fieldCipher().decrypt(row.url),
    };
  }
}
