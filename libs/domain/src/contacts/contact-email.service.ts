// What the sending side needs from contact emails, by address (found through the blind index):
// the status of many recipients at once (suppression), and bounce / complaint feedback.
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { normaliseEmail } from '../crypto/field-encryption';
import { blindIndexCandidatesOf } from './blind-index';
import { EmailStatus } from './contact-channels.entity';

export interface ContactEmailStatus {
  contactId: string;
  contactEmailId: string;
  status: EmailStatus;
}

/** Statuses a bounce or complaint does not overwrite: the operator's suppression stands. */
const KEEP_ON_BOUNCE = ['complained', 'suppressed'];
const KEEP_ON_COMPLAINT = ['suppressed'];

interface EmailRow {
  id: string;
  contact_id: string;
  status: EmailStatus;
}

@Injectable()
export class ContactEmailService {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** Normalised email → its record, for the addresses that belong to a contact of the organization. */
  async findStatusesByEmails(
    orgId: string,
    emails: string[],
  ): Promise<Map<string, ContactEmailStatus>> {
    const out = new Map<string, ContactEmailStatus>();
    const byHash = new Map<string, string>();
    for (const email of new Set(emails.map(normaliseEmail))) {
      if (!email) continue;
      for (const h of blindIndexCandidatesOf('email', email)) byHash.set(h, email);
    }
    if (!byHash.size) return out;
    const rows: { id: string; contact_id: string; status: EmailStatus; email_hash: string }[] =
      await this.ds.query(
        `SELECT id, contact_id, status, email_hash FROM contact_emails
          WHERE organization_id = $1 AND email_hash = ANY($2::text[])`,
        [orgId, [...byHash.keys()]],
      );
    for (const r of rows) {
      const email = byHash.get(r.email_hash)!;
      out.set(email, { contactId: r.contact_id, contactEmailId: r.id, status: r.status });
    }
    return out;
  }

  /** bounceCount + 1 and lastBouncedAt; a hard bounce also sets status `bounced`. */
  async recordBounce(
    orgId: string,
    email: string,
    bounce: { hard: boolean; at: Date },
  ): Promise<ContactEmailStatus | null> {
    const rows: EmailRow[] = await this.ds.query(
      `WITH u AS (
       UPDATE contact_emails
          SET bounce_count = bounce_count + 1,
              last_bounced_at = GREATEST(coalesce(last_bounced_at, $3), $3),
              status = CASE WHEN $4 AND NOT (status = ANY($5::text[])) THEN 'bounced' ELSE status END,
              updated_at = now()
        WHERE organization_id = $1 AND email_hash = ANY($2::text[])
        RETURNING id, contact_id, status
       ) SELECT * FROM u`,
      [orgId, blindIndexCandidatesOf('email', email), bounce.at, bounce.hard, KEEP_ON_BOUNCE],
    );
    return this.first(rows);
  }

  /** complaintCount + 1, lastComplainedAt and status `complained` (in `em`'s transaction). */
  async recordComplaint(
    orgId: string,
    email: string,
    at: Date,
    em: EntityManager = this.ds.manager,
  ): Promise<ContactEmailStatus | null> {
    const rows: EmailRow[] = await em.query(
      `WITH u AS (
       UPDATE contact_emails
          SET complaint_count = complaint_count + 1,
              last_complained_at = GREATEST(coalesce(last_complained_at, $3), $3),
              status = CASE WHEN status = ANY($4::text[]) THEN status ELSE 'complained' END,
              updated_at = now()
        WHERE organization_id = $1 AND email_hash = ANY($2::text[])
        RETURNING id, contact_id, status
       ) SELECT * FROM u`,
      [orgId, blindIndexCandidatesOf('email', email), at, KEEP_ON_COMPLAINT],
    );
    return this.first(rows);
  }

  private first(rows: EmailRow[]): ContactEmailStatus | null {
    const r = rows[0];
    return r ? { contactId: r.contact_id, contactEmailId: r.id, status: r.status } : null;
  }
}
