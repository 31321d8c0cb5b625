// Acceptance 1 (issue 5): a generated 10,000-row CSV with 3 % invalid rows (bad email, bad status,
// bad phone) and 5 % duplicates (against existing contacts and earlier rows of the same file) ends
// with exact counters, the §7 invariants, the right list memberships and tags, an errors file whose
// rows and messages match the invalid rows, and progress visible while it runs.
import { INestApplication } from '@nestjs/common';
import { TestingModule } from '@nestjs/testing';
import { DataSource } from 'typeorm';
import { asOrgId, ContactsService } from '@app/domain';
import { createTestApp } from '../support/app';
import { createSession, Session } from '../support/session';
import {
  downloadErrors,
  ImportBody,
  line,
  start,
  startInProcessWorker,
  upload,
  waitForImport,
} from './imports-support';

const ROWS = 10_000;
const EXISTING = 250;
const HEADER = ['Email', 'First Name', 'Last Name', 'Phone', 'Status', 'Plan', 'Tags'];

interface Expected {
  csv: string;
  invalid: Map<number, { field: string; cells: string[] }>;
  newCount: number;
  duplicateCount: number;
  /** Distinct contacts the successful rows resolve to (list members, `imported` tag). */
  contacts: Set<string>;
  /** Contacts (by email) that must carry the row tag `alpha`. */
  alpha: Set<string>;
}

/**
 * Row i (1-based): every 100th row (i % 100 === 7, 37, 67) is invalid, one kind each; i % 40 === 11
 * repeats an existing contact's email; i % 40 === 31 repeats an earlier row of the file (the
 * previous row, or one 5,000 rows back, in another batch).
 */
function generate(existingEmails: string[]): Expected {
  let csv = line(HEADER);
  const invalid = new Map<number, { field: string; cells: string[] }>();
  const emailOfRow = new Map<number, string>();
  const seen = new Set<string>(existingEmails);
  const contacts = new Set<string>();
  const alpha = new Set<string>();
  let newCount = 0;
  let duplicateCount = 0;
  let existingUsed = 0;
  for (let i = 1; i <= ROWS; i++) {
    let email = `person${i}@import.test`;
    let status = ['active', 'Inactive', 'archived', ''][i % 4];
    let phone = i % 3 === 0 ? `+4420${String(7_000_000 + i).padStart(8, '0')}` : '';
    let plan = `plan-${i % 5}`;
    const tags = i % 7 === 0 ? 'alpha;beta' : '';
    let bad: string | undefined;
    if (i % 100 === 7) {
      email = `broken${i}.at.nowhere`;
      bad = 'email';
      if (i === 107) plan = '=HYPERLINK("http://x")';
    } else if (i % 100 === 37) {
      status = 'zombie';
      bad = 'status';
    } else if (i % 100 === 67) {
      phone = `12ab${i}`;
      bad = 'phoneNumber';
    } else if (i % 40 === 11 && existingUsed < EXISTING) {
      email = existingEmails[existingUsed++].toUpperCase();
    } else if (i % 40 === 31 && i > 1) {
      const back = i > 5001 && i % 80 === 31 ? i - 5000 : i - 1;
      const earlier = emailOfRow.get(back);
      if (earlier) email = earlier;
    }
    const cells = [email, `First${i}`, `Last${i}`, phone, status, plan, tags];
    csv += line(cells);
    if (bad) {
      invalid.set(i, { field: bad, cells });
      continue;
    }
    emailOfRow.set(i, email.toLowerCase());
    const key = email.toLowerCase();
    if (seen.has(key)) duplicateCount++;
    else {
      newCount++;
      seen.add(key);
    }
    contacts.add(key);
    if (tags) alpha.add(key);
  }
  return { csv, invalid, newCount, duplicateCount, contacts, alpha };
}

describe('Contact import: counters, memberships, tags and the errors file', () => {
  let app: INestApplication;
  let worker: TestingModule;
  let s: Session;
  let ds: DataSource;
  let expected: Expected;
  let done: ImportBody;
  let observed: number[];

  beforeAll(async () => {
    app = await createTestApp();
    worker = await startInProcessWorker();
    s = await createSession(app);
    ds = app.get(DataSource);
    const contacts = app.get(ContactsService);
    const existing: string[] = [];
    for (let i = 0; i < EXISTING; i++) {
      const email = `existing${i}@import.test`;
      await contacts.create(asOrgId(s.org.id), {
        firstName: 'Old',
        emails: [{ email }],
        tags: ['old'],
      });
      existing.push(email);
    }
    expected = generate(existing);
    const up = await upload(s, expected.csv, 'spring.csv');
    await start(s, up.import.id, {
      fieldMappings: [
        { csvHeader: 'Email', serviceField: 'email' },
        { csvHeader: 'First Name', serviceField: 'firstName' },
        { csvHeader: 'Last Name', serviceField: 'lastName' },
        { csvHeader: 'Phone', serviceField: 'phoneNumber' },
        { csvHeader: 'Status', serviceField: 'status' },
        { csvHeader: 'Plan', serviceField: 'customFields.plan' },
        { csvHeader: 'Tags', serviceField: 'tags' },
      ],
      duplicateHandling: 'skip',
      allowPartialUpload: true,
      listName: 'Spring import',
      tags: ['imported'],
    });
    observed = [];
    done = await waitForImport(s, up.import.id, {
      timeoutMs: 120_000,
      everyMs: 50,
      until: (i) => {
        observed.push(i.processedRows);
        // §7 invariants hold at every poll, not only at the end.
        expect(i.processedRows).toBe(i.successCount + i.errorCount);
        expect(i.successCount).toBe(i.newCount + i.duplicateCount);
        return ['completed', 'completed_with_errors', 'failed', 'cancelled'].includes(i.status);
      },
    });
  }, 180_000);

  afterAll(async () => {
    await worker.close();
    await app.close();
  });

  it('ends completed_with_errors with exact counters and the §7 invariants', () => {
    expect(expected.invalid.size).toBe(300);
    expect(expected.duplicateCount).toBe(500);
    expect(done).toMatchObject({
      status: 'completed_with_errors',
      totalRows: ROWS,
      processedRows: ROWS,
      errorCount: 300,
      successCount: ROWS - 300,
      newCount: expected.newCount,
      duplicateCount: expected.duplicateCount,
      listName: 'Spring import',
      tags: ['imported'],
    });
    expect(done.processedRows).toBe(done.successCount + done.errorCount);
    expect(done.successCount).toBe(done.newCount + done.duplicateCount);
    expect(done.completedAt).not.toBeNull();
  });

  it('showed progress while it ran (intermediate processedRows values)', () => {
    const intermediate = new Set(observed.filter((n) => n > 0 && n < ROWS));
    expect(intermediate.size).toBeGreaterThanOrEqual(2);
  });

  it('wrote each new contact once, left existing ones unchanged (skip)', async () => {
    const [{ n }] = await ds.query(
      `SELECT count(*)::int AS n FROM contacts WHERE organization_id = $1`,
      [s.org.id],
    );
    expect(n).toBe(EXISTING + expected.newCount);
    const [{ dups }] = await ds.query(
      `SELECT count(*)::int AS dups FROM (
         SELECT email_hash FROM contact_emails WHERE organization_id = $1
          GROUP BY email_hash HAVING count(*) > 1) d`,
      [s.org.id],
    );
    expect(dups).toBe(0);
    const [{ old }] = await ds.query(
      `SELECT count(*)::int AS old FROM contacts WHERE organization_id = $1 AND first_name = 'Old'`,
      [s.org.id],
    );
    expect(old).toBe(EXISTING);
    // Status values are normalised by the shared rules ("Inactive" → inactive; empty → active).
    const statuses: { status: string; n: number }[] = await ds.query(
      `SELECT status, count(*)::int AS n FROM contacts WHERE organization_id = $1 GROUP BY 1`,
      [s.org.id],
    );
    expect(statuses.map((r) => r.status).sort()).toEqual(['active', 'archived', 'inactive']);
  });

  it('subscribed every resolved contact to the list, subscriberCount exact', async () => {
    const [list] = await ds.query(
      `SELECT id, subscriber_count FROM contact_lists WHERE organization_id = $1 AND name = $2`,
      [s.org.id, 'Spring import'],
    );
    const [{ n }] = await ds.query(
      `SELECT count(*)::int AS n FROM contact_list_memberships
        WHERE contact_list_id = $1 AND status = 'subscribed'`,
      [list.id],
    );
    expect(n).toBe(expected.contacts.size);
    expect(list.subscriber_count).toBe(n);
    const res = await s.http.get(`/api/v1/user/contact-lists/${list.id}`);
    expect(res.body.data.subscriberCount).toBe(expected.contacts.size);
  });

  it('tagged every resolved contact with the import tag and the row tags', async () => {
    const res = await s.http.get('/api/v1/user/contact-tags?limit=100');
    const count = (name: string) =>
      (res.body.data as { name: string; contactCount: number }[]).find((t) => t.name === name)
        ?.contactCount;
    expect(count('imported')).toBe(expected.contacts.size);
    expect(count('alpha')).toBe(expected.alpha.size);
    expect(count('beta')).toBe(expected.alpha.size);
    expect(count('old')).toBe(EXISTING);
    const [{ n }] = await ds.query(
      `SELECT count(*)::int AS n FROM contacts c JOIN contact_tags t ON t.id = ANY(c.tag_ids)
        WHERE c.organization_id = $1 AND t.organization_id = $1 AND t.name = 'imported'`,
      [s.org.id],
    );
    expect(n).toBe(expected.contacts.size);
  });

  it('kept the contacts aggregates equal to the rows (channel bits, counters)', async () => {
    const wrongMask = await ds.query(
      `SELECT c.id FROM contacts c WHERE c.organization_id = $1 AND c.channel_mask <>
         ((CASE WHEN EXISTS (SELECT 1 FROM contact_emails t WHERE t.contact_id = c.id) THEN 1 ELSE 0 END)
        | (CASE WHEN EXISTS (SELECT 1 FROM contact_sms t WHERE t.contact_id = c.id) THEN 2 ELSE 0 END))`,
      [s.org.id],
    );
    expect(wrongMask).toEqual([]);
    const diff = await ds.query(
      `SELECT * FROM (SELECT status, channel_mask, sum(total) AS total FROM contact_counters
                      WHERE organization_id = $1 GROUP BY 1, 2) a
         FULL JOIN (SELECT coalesce(status, '') AS status, channel_mask, count(*) AS n
                      FROM contacts WHERE organization_id = $1 GROUP BY 1, 2) b
           ON a.status = b.status AND a.channel_mask = b.channel_mask
        WHERE coalesce(a.total, 0) <> coalesce(b.n, 0)`,
      [s.org.id],
    );
    expect(diff).toEqual([]);
    // tag_ids (written at insert for new contacts, added to for existing ones): sorted, distinct,
    // each a tag of the organization.
    const wrongTagIds = await ds.query(
      `SELECT c.id FROM contacts c WHERE c.organization_id = $1 AND c.tag_ids <>
         coalesce((SELECT array_agg(t.id ORDER BY t.id) FROM contact_tags t
                    WHERE t.organization_id = $1 AND t.id = ANY(c.tag_ids)), '{}')`,
      [s.org.id],
    );
    expect(wrongTagIds).toEqual([]);
    const [{ tagged }] = await ds.query(
      `SELECT count(*)::int AS tagged FROM contacts WHERE organization_id = $1 AND cardinality(tag_ids) > 0`,
      [s.org.id],
    );
    expect(tagged).toBeGreaterThanOrEqual(expected.contacts.size);
    const phones = await s.http.get('/api/v1/user/contacts?channel=sms&limit=1');
    expect(phones.body.meta.total).toBeGreaterThan(3000);
  });

  it('has an errors file whose rows and messages match the invalid rows', async () => {
    expect(done.errorsFilePath).toMatch(/^imports\/.+\/errors\.csv$/);
    const file = await downloadErrors(s, done.id);
    expect(file.status).toBe(200);
    expect(file.contentType).toMatch(/^text\/csv/);
    const [header, ...rows] = file.rows;
    expect(header).toEqual([...HEADER, 'row', 'error']);
    expect(rows).toHaveLength(300);
    for (const r of rows) {
      const rowNo = Number(r[HEADER.length]);
      const want = expected.invalid.get(rowNo);
      expect(want).toBeDefined();
      const cells = r.slice(0, HEADER.length);
      // Formula-looking cells are neutralised with a leading quote, everything else verbatim.
      expect(cells).toEqual(want!.cells.map((c) => (/^[=+\-@]/.test(c) ? `'${c}` : c)));
      expect(r[HEADER.length + 1]).toContain(want!.field);
    }
    expect(new Set(rows.map((r) => r[HEADER.length])).size).toBe(300);
    expect(file.text).toContain(`'=HYPERLINK`);
    // Phone numbers of invalid rows start with "+" too: they are quoted as text.
    const phoneCell = rows.find((r) => r[3].startsWith("'+"));
    expect(phoneCell).toBeDefined();
  });
});
