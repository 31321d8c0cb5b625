// The delivery side of ContactEmail (§8): which recipients are suppressed, and bounce bookkeeping.
// Plain SQL over contact_emails, always scoped by organization, matched by blind index.
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { fieldCipher, normaliseEmail } from '../crypto/field-encryption';

/** ContactEmail statuses that must never be sent to. */
export const SUPPRESSED_EMAIL_STATUSES = ['bounced', 'complained', 'suppressed'] as const;

@Injectable()
export class ContactEmailStatusRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** Blind-index candidates of each address (every known key), keyed back to the address. */
  private candidates(emails: string[]): Map<string, string> {
    const byHash = new Map<string, string>();
    for (const email of emails) {
      for (const h of fieldCipher().blindIndexCandidates(normaliseEmail(email))) {
        byHash.set(h, normaliseEmail(email));
      }
    }
    return byHash;
  }

  /** Whether older encryption keys exist, so blind indexes may differ between rows (rotation). */
  rotating(): boolean {
    return fieldCipher().blindIndexCandidates('').length > 1;
  }

  /** Normalised addresses among `emails` whose ContactEmail is bounced, complained or suppressed. */
  async suppressed(organizationId: string, emails: string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    if (!emails.length) return out;
    const byHash = this.candidates(emails);
    const rows: { email_hash: string; status: string }[] = await this.ds.query(
      `SELECT email_hash, status FROM contact_emails
        WHERE organization_id = $1 AND email_hash = ANY($2::text[]) AND status = ANY($3::text[])`,
      [organizationId, [...byHash.keys()], SUPPRESSED_EMAIL_STATUSES],
    );
    for (const r of rows) out.set(byHash.get(r.email_hash)!, r.status);
    return out;
  }

  /**
   * Counts a bounce on each address's ContactEmail; a hard bounce also sets it `bounced` (a
   * complained or suppressed address keeps its stronger status).
   */
  async recordBounces(
    organizationId: string,
    bounces: { email: string; hard: boolean }[],
    at: Date,
    em: EntityManager = this.ds.manager,
  ): Promise<void> {
    for (const hard of [true, false]) {
      const emails = bounces.filter((b) => b.hard === hard).map((b) => b.email);
      if (!emails.length) continue;
      const hashes = [...this.candidates(emails).keys()];
      await em.query(
        `UPDATE contact_emails
            SET bounce_count = bounce_count + 1,
                last_bounced_at = $3,
                status = CASE WHEN $4 AND status NOT IN ('complained','suppressed') THEN 'bounced' ELSE status END,
                updated_at = now()
          WHERE organization_id = $1 AND email_hash = ANY($2::text[])`,
        [organizationId, hashes, at, hard],
      );
    }
  }
}
