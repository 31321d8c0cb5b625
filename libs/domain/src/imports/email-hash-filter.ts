// An organization's email blind indexes in the worker's memory: which rows may be duplicates.
import type { OrgId } from '../common/org-id';
import type { ContactsBulkService } from '../contacts/contacts-bulk.service';

const PAGE = 50_000;

/**
 * A batch asks the database only about the rows that can be duplicates: at a million contacts
 * the unique index on (organization, email_hash) no longer fits in memory and each probe of a
 * random hash is a page read. The filter holds 52-bit prefixes in an open-addressing table of
 * doubles (8 bytes a slot, load at most 1/2; a false positive only costs a database probe); a
 * hash written by someone else after it was loaded is caught by the unique index, and the batch
 * is then retried with a full lookup.
 */
export class EmailHashFilter {
  private slots = new Float64Array(1 << 12);
  private count = 0;

  /** 52 bits of the hash, never 0 (0 marks an empty slot). */
  private static key(hash: string): number {
    return parseInt(hash.slice(0, 13), 16) || 1;
  }

  /** Reads the organization's email hashes in index order, a page at a time. */
  static async load(
    contacts: ContactsBulkService,
    organizationId: OrgId,
  ): Promise<EmailHashFilter> {
    const filter = new EmailHashFilter();
    let after = '';
    for (;;) {
      const hashes = await contacts.emailHashes(organizationId, after, PAGE);
      for (const h of hashes) filter.add(h);
      if (hashes.length < PAGE) return filter;
      after = hashes[hashes.length - 1];
    }
  }

  get size(): number {
    return this.count;
  }

  add(hash: string): void {
    if ((this.count + 1) * 2 > this.slots.length) this.grow();
    if (this.insert(this.slots, EmailHashFilter.key(hash))) this.count++;
  }

  mightContain(hash: string): boolean {
    const key = EmailHashFilter.key(hash);
    const mask = this.slots.length - 1;
    for (let i = key % this.slots.length; ; i = (i + 1) & mask) {
      const v = this.slots[i];
      if (v === key) return true;
      if (v === 0) return false;
    }
  }

  private insert(slots: Float64Array, key: number): boolean {
    const mask = slots.length - 1;
    for (let i = key % slots.length; ; i = (i + 1) & mask) {
      const v = slots[i];
      if (v === key) return false;
      if (v === 0) {
        slots[i] = key;
        return true;
      }
    }
  }

  private grow(): void {
    const next = new Float64Array(this.slots.length * 2);
    for (const v of this.slots) if (v !== 0) this.insert(next, v);
    this.slots = next;
  }
}
