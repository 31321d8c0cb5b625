// Contact emails by address for the sending side (§8, §14): statuses of recipients, which of them
// must not be sent to, the addresses of a contact, and the one bounce and complaint bookkeeping.
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { OrgId } from '../common/org-id';
import { fieldCipher, normaliseEmail } from '../crypto/field-encryption';
import { blindIndexCandidatesOf } from './blind-index';
import { EmailStatus, SUPPRESSED_EMAIL_STATUSES } from './contact-channels.entity';
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
    orgId: OrgId,
    emails: string[],
  ): Promise<Map<string, ContactEmailStatus>> {
    const out = new Map<string, ContactEmailStatus>();
    for (const { email, r } of await this.recordsOf(orgId, emails)) {
      out.set(email, { contactId: r.contact_id, contactEmailId: r.id, status: r.status });
    }
    return out;
  }

  /** Whether older encryption keys exist, so blind indexes may differ between rows (rotation). */
  rotating(): boolean {
    return fieldCipher().blindIndexCandidates('').length > 1;
  }

  /**
   * Normalised address → status, for those of `emails` whose ContactEmail of the organization is
   * bounced, complained or suppressed (looked up under every key).
   */
  async suppressed(orgId: OrgId, emails: string[]): Promise<Map<string, EmailStatus>> {
    const out = new Map<string, EmailStatus>();
    const refused: readonly EmailStatus[] = SUPPRESSED_EMAIL_STATUSES;
    for (const { email, r } of await this.recordsOf(orgId, emails)) {
      if (refused.includes(r.status)) out.set(email, r.status);
    }
    return out;
  }

  /** The addresses of the organization's contact (none when it has none, or is not its). */
  async addressesOf(orgId: OrgId, contactId: string): Promise<string[]> {
    const cipher = fieldCipher();
    return (await this.channels.emailsOf(orgId, contactId)).map((e) => cipher.decrypt(e));
  }

  /**
   * Counts a bounce on each address's ContactEmail, in `em`'s transaction: bounceCount + 1 and
   * lastBouncedAt; a hard bounce also sets it `bounced` (a complained or suppressed address keeps
   * its stronger status). One statement per kind of bounce present.
   */
  async recordBounces(
    em: EntityManager,
    orgId: OrgId,
    bounces: { email: string; hard: boolean }[],
    at: Date,
  ): Promise<void> {
    for (const hard of [true, false]) {
      const hashes = bounces
        .filter((b) => b.hard === hard)
        .flatMap((b) => blindIndexCandidatesOf('email', b.email));
      if (!hashes.length) continue;
      await this.channels.recordBounces(em, orgId, [...new Set(hashes)], hard, KEEP_ON_BOUNCE, at);
    }
  }

  /** complaintCount + 1, lastComplainedAt and status `complained` (in `em`'s transaction). */
  async recordComplaint(
    orgId: OrgId,
    email: string,
    at: Date,
    em?: EntityManager,
  ): Promise<ContactEmailStatus | null> {
    const rows = await this.channels.recordComplaint(
      orgId,
      blindIndexCandidatesOf('email', email),
      at,
      KEEP_ON_COMPLAINT,
      em,
    );
    return this.first(rows);
  }

  /** The organization's records of these addresses (under every key), each with its address. */
  private async recordsOf(
    orgId: OrgId,
    emails: string[],
  ): Promise<{ email: string; r: EmailRecordStatus }[]> {
    const byHash = new Map<string, string>();
    for (const email of new Set(emails.map(normaliseEmail))) {
      if (!email) continue;
      for (const h of blindIndexCandidatesOf('email', email)) byHash.set(h, email);
    }
    if (!byHash.size) return [];
    const rows = await this.channels.emailsByHash(orgId, [...byHash.keys()]);
    return rows.map((r) => ({ email: byHash.get(r.email_hash)!, r }));
  }

  private first(rows: EmailRecordStatus[]): ContactEmailStatus | null {
    const r = rows[0];
    return r ? { contactId: r.contact_id, contactEmailId: r.id, status: r.status } : null;
  }
}
