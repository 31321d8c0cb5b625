// Contact emails by address for the sending side: statuses of recipients, bounces and complaints.
import { Injectable } from '@nestjs/common';
import { normaliseEmail } from '../crypto/field-encryption';
import { blindIndexCandidatesOf } from './blind-index';
import { EmailStatus } from './contact-channels.entity';
import { ContactChannelsRepository, EmailRecordStatus } from './contact-channels.repository';

export interface ContactEmailStatus {
  contactId: string;
  contactEmailId: string;
  status: EmailStatus;
}

/** Statuses a bounce or complaint does not overwrite: the operator's suppression stands. */
const KEEP_ON_BOUNCE = ['complained', 'suppressed'];
const KEEP_ON_COMPLAINT = ['suppressed'];

@Injectable()
export class ContactEmailService {
  constructor(private readonly channels: ContactChannelsRepository) {}

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
    const rows = await this.channels.emailsByHash(orgId, [...byHash.keys()]);
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
    const rows = await this.channels.recordBounce(
      orgId,
      blindIndexCandidatesOf('email', email),
      bounce.at,
      bounce.hard,
      KEEP_ON_BOUNCE,
    );
    return this.first(rows);
  }

  /** complaintCount + 1, lastComplainedAt and status `complained`. */
  async recordComplaint(
    orgId: string,
    email: string,
    at: Date,
  ): Promise<ContactEmailStatus | null> {
    const rows = await this.channels.recordComplaint(
      orgId,
      blindIndexCandidatesOf('email', email),
      at,
      KEEP_ON_COMPLAINT,
    );
    return this.first(rows);
  }

  private first(rows: EmailRecordStatus[]): ContactEmailStatus | null {
    const r = rows[0];
    return r ? { contactId: r.contact_id, contactEmailId: r.id, status: r.status } : null;
  }
}
