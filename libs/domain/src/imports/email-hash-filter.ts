// Which email blind indexes an organization may already have, in the worker's memory, so a batch
// asks the database only about the rows that can be duplicates. At a million contacts the unique
// index on (organization, email_hash) no longer fits in memory and each probe of a random hash is a
// page read: probing only the possible duplicates saves one such read per new row. The filter holds
// 52-bit prefixes (a false positive only costs a database probe); a hash written by someone else
// after it was loaded is caught by the unique index, and the batch is then retried with a full
// lookup.
import { DataSource } from 'typeorm';

const PAGE = 50_000;

export class EmailHashFilter {
  private readonly prefixes = new Set<number>();

  private static key(hash: string): number {
    return parseInt(hash.slice(0, 13), 16);
  }

  /** Reads the organization's email hashes in index order, a page at a time. */
  static async load(ds: DataSource, organizationId: string): Promise<EmailHashFilter> {
    const filter = new EmailHashFilter();
    let after = '';
    for (;;) {
      const rows: { email_hash: string }[] = await ds.query(
        `SELECT email_hash FROM contact_emails
          WHERE organization_id = $1 AND email_hash > $2
          ORDER BY email_hash LIMIT ${PAGE}`,
        [organizationId, after],
      );
      for (const r of rows) filter.add(r.email_hash);
      if (rows.length < PAGE) return filter;
      after = rows[rows.length - 1].email_hash;
    }
  }

  get size(): number {
    return this.prefixes.size;
  }

  add(hash: string): void {
    this.prefixes.add(EmailHashFilter.key(hash));
  }

  mightContain(hash: string): boolean {
    return this.prefixes.has(EmailHashFilter.key(hash));
  }
}
