// The delivery side of ContactEmail (§8): which recipients are suppressed, and bounce bookkeeping.
// Statements over contact_emails, always one organization's, matched by blind index.
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { fieldCipher, normaliseEmail } from '../crypto/field-encryption';
import { query, sql } from '../database/sql';

/** ContactEmail statuses that must never be sent to. */
export const SUPPRESSED_EMAIL_STATUSES = ['bounced', 'complained', 'suppressed'] as const;

/** Blind-index candidates of each address (every known key), keyed back to the address. */
function candidates(emails: string[]): Map<string, string> {
  const byHash = new Map<string, string>();
  for (const email of emails) {
    for (const h of fieldCipher().blindIndexCandidates(normaliseEmail(email))) {
      byHash.set(h, normaliseEmail(email));
    }
  }
  return byHash;
}

@Injectable()
export class ContactEmailStatusRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** Whether older encryption keys exist, so blind indexes may differ between rows (rotation). */
  rotating(): boolean {
    return fieldCipher().blindIndexCandidates('').length > 1;
  }

  /** Normalised addresses among `emails` whose ContactEmail is bounced, complained or suppressed. */
  async suppressed(organizationId: string, emails: string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    if (!emails.length) return out;
    const byHash = candidates(emails);
    const rows = await query<{ email_hash: string; status: string }>(
      this.ds,
      sql`SELECT email_hash, status FROM contact_emails
           WHERE organization_id = ${organizationId}::uuid
             AND email_hash = ANY(${[...byHash.keys()]}::text[])
             AND status = ANY(${SUPPRESSED_EMAIL_STATUSES}::text[])`,
    );
    for (const r of rows) out.set(byHash.get(r.email_hash)!, r.status);
    return out;
  }

  /**
   * Counts a bounce on each address's ContactEmail, in the caller's transaction; a hard bounce
   * also sets it `bounced` (a complained or suppressed address keeps its stronger status).
   */
  async recordBounces(
    em: EntityManager,
    organizationId: string,
    bounces: { email: string; hard: boolean }[],
    at: Date,
  ): Promise<void> {
    for (const hard of [true, false]) {
      const emails = bounces.filter((b) => b.hard === hard).map((b) => b.email);
      if (!emails.length) continue;
      const hashes = [...candidates(emails).keys()];
      await query(
        em,
        sql`UPDATE contact_emails
               SET bounce_count = bounce_count + 1,
                   last_bounced_at = ${at}::timestamptz,
                   status = CASE WHEN ${hard}::boolean AND status NOT IN ('complained', 'suppressed')
                                 THEN 'bounced' ELSE status END,
                   updated_at = now()
             WHERE organization_id = ${organizationId}::uuid AND email_hash = ANY(${hashes}::text[])`,
      );
    }
  }
}
