// A CSV import driven from the dashboard: upload, mapping prefilled from the suggestions, consent,
// start, then the bar reaches 100 % with the counters the worker committed; errors file download.
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DashboardStack,
  navigate,
  seriousA11yViolations,
  signIn,
  startDashboardStack,
  textEventually,
} from './support/browser';

const ROWS = 3000;

/** ROWS rows: two repeat an earlier email (duplicates), three have a malformed email (errors). */
function csv(tag: string): string {
  const lines = ['First Name,Last Name,Email,Plan'];
  for (let i = 0; i < ROWS - 5; i++)
    lines.push(`Person${i},Imported${tag},p${i}.${tag}@example.test,gold`);
  lines.push(`Again,Imported${tag},p1.${tag}@example.test,gold`);
  lines.push(`Again,Imported${tag},p2.${tag}@example.test,gold`);
  for (let i = 0; i < 3; i++) lines.push(`Broken${i},Imported${tag},not-an-email-${i},gold`);
  return lines.join('\n') + '\n';
}

describe('dashboard imports', () => {
  let stack: DashboardStack;
  const tag = randomUUID().slice(0, 6);
  const file = join(tmpdir(), `contacts-${tag}.csv`);

  beforeAll(async () => {
    writeFileSync(file, csv(tag));
    // Several committed batches, so the bar has steps to show.
    stack = await startDashboardStack({ env: { IMPORT_BATCH_SIZE: '300' } });
    await signIn(stack);
  });
  afterAll(() => stack.close());

  it('uploads, maps, starts and watches the bar reach 100 % with the right counters', async () => {
    const { page } = stack;
    await navigate(page, 'Imports');
    await page.getByText('No imports yet').waitFor();
    await page.getByRole('link', { name: 'New import' }).click();
    await page.getByRole('heading', { name: 'New import', level: 1 }).waitFor();
    const [chooser] = await Promise.all([
      page.waitForEvent('filechooser'),
      page.getByLabel('CSV file').click(),
    ]);
    await chooser.setFiles(file);
    await page.getByRole('button', { name: 'Upload' }).click();

    // Prefilled from the API's suggestions; the unknown column is imported as a custom field.
    const emailColumn = page.locator('input[aria-label="Import column Email as"]');
    await emailColumn.waitFor();
    expect(await emailColumn.inputValue()).toBe('Email');
    // The suggestion for an unknown column is a custom field of the same name.
    expect(await page.locator('input[aria-label="Import column Plan as"]').inputValue()).toBe(
      'Custom field "plan"',
    );
    expect(await page.locator('input[aria-label="Import column First Name as"]').inputValue()).toBe(
      'First name',
    );
    await page.locator('input[aria-label="Import column Plan as"]').click();
    await page.getByRole('option', { name: 'Do not import' }).click();
    await page.locator('input[aria-label="Import column Plan as"]').click();
    await page.getByRole('option', { name: 'Custom field "plan"' }).click();
    await page.getByLabel('Add to list').fill(`Imported ${tag}`);
    expect(await seriousA11yViolations(page)).toEqual([]);

    // Consent is required before anything starts.
    await page.getByRole('button', { name: 'Start import' }).click();
    await page.getByText('Confirm that these contacts agreed to be contacted').waitFor();
    await page
      .getByLabel('I confirm that the contacts in this file agreed to be contacted')
      .check();
    await page.getByRole('button', { name: 'Start import' }).click();

    const percent = page.getByTestId('import-percent');
    await percent.waitFor();
    const seen: number[] = [];
    await textEventually(
      percent,
      (t) => {
        seen.push(parseInt(t, 10));
        return t === '100 %';
      },
      60_000,
    );
    expect([...seen].sort((a, b) => a - b)).toEqual(seen);
    await textEventually(page.getByTestId('import-status'), (t) => t === 'completed with errors');
    expect(await page.getByTestId('import-processed').textContent()).toBe(
      (3000).toLocaleString('en-US'),
    );
    expect(await page.getByTestId('import-new').textContent()).toBe((2995).toLocaleString('en-US'));
    expect(await page.getByTestId('import-duplicates').textContent()).toBe('2');
    expect(await page.getByTestId('import-errors').textContent()).toBe('3');
    expect(await seriousA11yViolations(page)).toEqual([]);

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download the errors file' }).click(),
    ]);
    const errors = readFileSync((await download.path())!, 'utf8');
    expect(errors.split('\n')[0]).toMatch(/row/);
    expect(errors).toContain('not-an-email-0');
    expect(errors.trim().split('\n')).toHaveLength(4);

    // The API agrees with what the page showed.
    const list = await stack.s.http.get('/api/v1/user/contact-imports').expect(200);
    expect(list.body.data[0]).toMatchObject({
      processedRows: 3000,
      newCount: 2995,
      duplicateCount: 2,
      errorCount: 3,
    });
  });
});
