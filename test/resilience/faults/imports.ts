// Fault: SIGKILL of the worker in the middle of a contact import. A new worker must resume it
// from the last committed batch: counters equal to the rows in the database, no contact twice.
import type { Reporter } from '../support/context';
import type { Platform } from '../support/harness';
import { dataOf, ApiClient } from '../support/api-client';
import { log, sleep } from '../support/util';
import { waitFor } from '../../support/wait-for';

export interface ImportView {
  id: string;
  status: string;
  totalRows: number;
  processedRows: number;
  successCount: number;
  errorCount: number;
  newCount: number;
  duplicateCount: number;
  listId?: string | null;
}

const TERMINAL = ['completed', 'completed_with_errors', 'failed', 'cancelled'];

/**
 * A CSV of `rows` data rows: about 1 % with an invalid email, 2 % repeating an earlier row's
 * email (a duplicate within the file, often in another batch), the rest new contacts.
 */
export function contactsCsv(rows: number, tag: string) {
  const lines = ['Email,First name,Last name'];
  let invalid = 0;
  let duplicates = 0;
  const emails: string[] = [];
  for (let i = 0; i < rows; i++) {
    if (i % 100 === 37) {
      invalid++;
      lines.push(`not-an-email-${i},Bad,Row${i}`);
    } else if (i % 50 === 11 && emails.length > 500) {
      duplicates++;
      lines.push(`${emails[emails.length - 500]},Again,Row${i}`);
    } else {
      const email = `c${i}.${tag}@resilience.example`;
      emails.push(email);
      lines.push(`${email},First${i},Last${i}`);
    }
  }
  return {
    csv: lines.join('\n') + '\n',
    expected: { rows, invalid, duplicates, new: rows - invalid - duplicates },
    emails,
  };
}

/** Uploads and starts an import with a list; returns its id. */
export async function startImport(http: ApiClient, csv: string, listName: string): Promise<string> {
  const up = dataOf<{ import: { id: string } }>(
    await http.upload('/api/v1/user/contact-imports', 'file', 'contacts.csv', csv),
    'upload',
    [201],
  );
  const id = up.import.id;
  dataOf(
    await http.post(`/api/v1/user/contact-imports/${id}/start`, {
      fieldMappings: [
        { csvHeader: 'Email', serviceField: 'email' },
        { csvHeader: 'First name', serviceField: 'firstName' },
        { csvHeader: 'Last name', serviceField: 'lastName' },
      ],
      duplicateHandling: 'skip',
      allowPartialUpload: true,
      listName,
      consentConfirmed: true,
    }),
    'start import',
    [202],
  );
  return id;
}

export async function readImport(http: ApiClient, id: string): Promise<ImportView> {
  return dataOf<{ import: ImportView }>(
    await http.get(`/api/v1/user/contact-imports/${id}`),
    'read import',
  ).import;
}

export async function waitImportDone(
  http: ApiClient,
  id: string,
  timeoutMs: number,
): Promise<ImportView> {
  return waitFor(
    async () => {
      const v = await readImport(http, id);
      return TERMINAL.includes(v.status) ? v : undefined;
    },
    { what: `import ${id} to finish`, timeoutMs: timeoutMs, everyMs: 500 },
  );
}

export async function workerKillDuringImport(
  p: Platform,
  reporter: Reporter,
  rows: number,
): Promise<void> {
  const name = `SIGKILL worker during a ${rows.toLocaleString('en-US')}-row import`;
  const org = await p.createOrg('Resilience import');
  const http = new ApiClient(p.apiUrl).withKey(org.apiKey);
  const { csv, expected } = contactsCsv(rows, 'imp');
  const id = await startImport(http, csv, 'Resilience import');
  let requests = 3;

  // Kill once a quarter of the rows is committed, while the import is still running.
  let atKill: ImportView | undefined;
  const target = Math.floor(rows / 4);
  for (const until = Date.now() + 10 * 60_000; Date.now() < until;) {
    const v = await readImport(http, id);
    requests++;
    if (TERMINAL.includes(v.status)) break;
    if (v.status === 'processing' && v.processedRows >= target) {
      atKill = v;
      break;
    }
    await sleep(100);
  }
  if (!atKill) {
    reporter.record({
      section: 'fault',
      name,
      requests,
      errors: 1,
      lost: 0,
      passed: false,
      notes: 'the import ended or stalled before the worker could be killed mid-way',
    });
    return;
  }
  log(`import at ${atKill.processedRows}/${rows} rows: SIGKILL worker`);
  await p.restartWorker('SIGKILL');
  const final = await waitImportDone(http, id, 15 * 60_000);
  requests++;

  const one = async (sql: string) =>
    Number((await p.db.query(sql, [org.id])).rows[0].n as string | number);
  const contacts = await one(`SELECT count(*) AS n FROM contacts WHERE organization_id = $1`);
  const emails = await one(`SELECT count(*) AS n FROM contact_emails WHERE organization_id = $1`);
  const distinctEmails = await one(
    `SELECT count(DISTINCT email_hash) AS n FROM contact_emails WHERE organization_id = $1`,
  );
  const members = await one(
    `SELECT count(*) AS n FROM contact_list_memberships WHERE organization_id = $1`,
  );
  const subscriberCount = await one(
    `SELECT coalesce(sum(subscriber_count), 0) AS n FROM contact_lists WHERE organization_id = $1`,
  );
  const errorsFile = await http.get<string>(`/api/v1/user/contact-imports/${id}/errors`);
  requests++;
  const errorRows =
    errorsFile.status === 200
      ? String(errorsFile.body)
          .split(/\r?\n/)
          .filter((l) => l.length > 0).length - 1
      : 0;

  const checks: [string, number, number][] = [
    ['processedRows', final.processedRows, rows],
    ['totalRows', final.totalRows, rows],
    ['errorCount', final.errorCount, expected.invalid],
    ['duplicateCount', final.duplicateCount, expected.duplicates],
    ['newCount', final.newCount, expected.new],
    ['contacts in DB', contacts, final.newCount],
    ['emails in DB', emails, final.newCount],
    ['distinct email hashes', distinctEmails, emails],
    ['list memberships', members, final.newCount],
    ['list subscriberCount', subscriberCount, members],
    ['rows in the errors file', errorRows, final.errorCount],
  ];
  const wrong = checks.filter(([, got, want]) => got !== want);
  const lost = Math.max(0, expected.new - contacts) + Math.max(0, expected.invalid - errorRows);
  reporter.record({
    section: 'fault',
    name,
    requests,
    errors: wrong.length,
    lost,
    passed: final.status === 'completed_with_errors' && wrong.length === 0,
    notes:
      `killed at ${atKill.processedRows.toLocaleString('en-US')} rows; ${final.status}, ` +
      `${final.newCount} new / ${final.duplicateCount} duplicate / ${final.errorCount} invalid; ` +
      `${contacts} contacts in DB` +
      (wrong.length
        ? `; MISMATCH ${wrong.map(([n, g, w]) => `${n} ${g} ≠ ${w}`).join(', ')}`
        : ', counters = rows in DB, no duplicate contact'),
  });
}
