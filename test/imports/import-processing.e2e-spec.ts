// Processing with an in-process worker: allowPartialUpload false and true, files
// that turn out broken past the preview, duplicateHandling update, other channels,
// cancel at a batch boundary, tenancy of the errors file, and the CLI import-file command.
import { INestApplication } from '@nestjs/common';
import { TestingModule } from '@nestjs/testing';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { asOrgId, ContactsService } from '@app/domain';
import { runAdmin as runCli } from '../../apps/api/src/cli';
import { createTestApp } from '../support/app';
import { holdsFor } from '../support/wait-for';
import { createSession, Session } from '../support/session';
import {
  downloadErrors,
  getImport,
  IMPORTS,
  line,
  start,
  startInProcessWorker,
  upload,
  waitForImport,
} from './imports-support';

const count = async (ds: DataSource, sql: string, params: unknown[]) =>
  ((await ds.query(sql, params)) as { n: number }[])[0].n;

describe('Contact import processing', () => {
  let app: INestApplication;
  let worker: TestingModule;
  let ds: DataSource;

  beforeAll(async () => {
    app = await createTestApp();
    worker = await startInProcessWorker();
    ds = app.get(DataSource);
  });
  afterAll(async () => {
    await worker.close();
    await app.close();
  });

  const contactsOf = (s: Session) =>
    count(ds, `SELECT count(*)::int AS n FROM contacts WHERE organization_id = $1`, [s.org.id]);

  function fiftyRows(badRow: number): string {
    let csv = line(['email', 'name', 'status']);
    for (let i = 1; i <= 50; i++)
      csv += line([`p${i}@partial.test`, `Name ${i}`, i === badRow ? 'deleted' : 'active']);
    return csv;
  }
  const MAP = [
    { csvHeader: 'email', serviceField: 'email' },
    { csvHeader: 'name', serviceField: 'firstName' },
    { csvHeader: 'status', serviceField: 'status' },
  ];

  describe('allowPartialUpload', () => {
    it('false: one invalid row fails the import and nothing is written', async () => {
      const s = await createSession(app);
      const up = await upload(s, fiftyRows(42));
      await start(s, up.import.id, {
        fieldMappings: MAP,
        allowPartialUpload: false,
        listName: 'Never created',
        tags: ['never'],
      });
      const done = await waitForImport(s, up.import.id);
      expect(done).toMatchObject({
        status: 'failed',
        totalRows: 50,
        successCount: 0,
        newCount: 0,
        duplicateCount: 0,
        errorCount: 1,
        processedRows: 1,
      });
      expect(done.errorReason).toMatch(
        /1 of 50 rows are invalid.*nothing was imported.*row 42: status/,
      );
      expect(await contactsOf(s)).toBe(0);
      expect(
        await count(
          ds,
          `SELECT count(*)::int AS n FROM contact_lists WHERE organization_id = $1 AND NOT is_default`,
          [s.org.id],
        ),
      ).toBe(0);
      expect(
        await count(ds, `SELECT count(*)::int AS n FROM contact_tags WHERE organization_id = $1`, [
          s.org.id,
        ]),
      ).toBe(0);
      const errors = await downloadErrors(s, up.import.id);
      expect(errors.rows).toEqual([
        ['email', 'name', 'status', 'row', 'error'],
        [
          'p42@partial.test',
          'Name 42',
          'deleted',
          '42',
          expect.stringMatching(/^status must be one of/),
        ],
      ]);
    });

    it('true: valid rows are written and the import ends completed_with_errors', async () => {
      const s = await createSession(app);
      const up = await upload(s, fiftyRows(42));
      await start(s, up.import.id, { fieldMappings: MAP, allowPartialUpload: true });
      const done = await waitForImport(s, up.import.id);
      expect(done).toMatchObject({
        status: 'completed_with_errors',
        totalRows: 50,
        processedRows: 50,
        successCount: 49,
        newCount: 49,
        errorCount: 1,
        errorReason: null,
      });
      expect(await contactsOf(s)).toBe(49);
      const errors = await downloadErrors(s, up.import.id);
      expect(errors.rows.map((r) => r[3])).toEqual(['row', '42']);

      const other = await createSession(app);
      expect((await other.http.get(`${IMPORTS}/${up.import.id}/errors`)).status).toBe(404);
    });

    it('false with every row valid: completed, no errors file', async () => {
      const s = await createSession(app);
      const up = await upload(s, fiftyRows(0));
      await start(s, up.import.id, { fieldMappings: MAP });
      const done = await waitForImport(s, up.import.id);
      expect(done).toMatchObject({ status: 'completed', newCount: 50, errorsFilePath: null });
      expect((await s.http.get(`${IMPORTS}/${up.import.id}/errors`)).status).toBe(404);
    });
  });

  describe('files broken past the preview', () => {
    it('fails an import whose quote is never closed, with a readable reason and nothing written', async () => {
      const s = await createSession(app);
      let csv = line(['email', 'name']);
      for (let i = 1; i <= 20; i++) csv += line([`q${i}@broken.test`, `N${i}`]);
      csv += 'q21@broken.test,"never closed\nq22@broken.test,N22\n';
      const up = await upload(s, csv);
      await start(s, up.import.id, {
        fieldMappings: [{ csvHeader: 'email', serviceField: 'email' }],
        allowPartialUpload: true,
      });
      const done = await waitForImport(s, up.import.id);
      expect(done.status).toBe('failed');
      expect(done.errorReason).toMatch(/^The file is not valid CSV: .*[Qq]uote.*line/);
      expect(await contactsOf(s)).toBe(0);
    });

    it('reports rows with a wrong number of columns as row errors', async () => {
      const s = await createSession(app);
      const csv = 'email,name\na@cols.test,A\nb@cols.test\nc@cols.test,C,extra\nd@cols.test,D\n';
      const up = await upload(s, csv);
      await start(s, up.import.id, {
        fieldMappings: [
          { csvHeader: 'email', serviceField: 'email' },
          { csvHeader: 'name', serviceField: 'firstName' },
        ],
        allowPartialUpload: true,
      });
      const done = await waitForImport(s, up.import.id);
      expect(done).toMatchObject({ status: 'completed_with_errors', newCount: 2, errorCount: 2 });
      const errors = await downloadErrors(s, up.import.id);
      expect(errors.rows.slice(1)).toEqual([
        ['b@cols.test', '', '2', 'row has 1 columns, the header has 2'],
        ['c@cols.test', 'C', '3', 'row has 3 columns, the header has 2'],
      ]);
    });
  });

  it('duplicateHandling update: non-empty cells overwrite, channels are added, custom fields merge', async () => {
    const s = await createSession(app);
    const existing = await app.get(ContactsService).create(asOrgId(s.org.id), {
      firstName: 'Old',
      lastName: 'Name',
      notes: 'keep me',
      customFields: { a: '1' },
      emails: [{ email: 'up@date.test' }],
      smsNumbers: [{ phoneNumber: '+14155550111' }],
    });
    const csv =
      line(['Email', 'First', 'Last', 'Notes', 'Phone', 'WhatsApp', 'Telegram', 'Tier']) +
      line(['UP@date.test', 'New', '', '', '+14155550111', '+447700900123', '@newhandle', 'gold']) +
      line(['fresh@date.test', 'Fresh', 'One', '', '+33612345678', '', 'fresh_tg', '']) +
      line(['fresh@date.test', '', 'Two', 'second row', '+33612345679', '', '', 'silver']);
    const up = await upload(s, csv);
    await start(s, up.import.id, {
      fieldMappings: [
        { csvHeader: 'Email', serviceField: 'email' },
        { csvHeader: 'First', serviceField: 'firstName' },
        { csvHeader: 'Last', serviceField: 'lastName' },
        { csvHeader: 'Notes', serviceField: 'notes' },
        { csvHeader: 'Phone', serviceField: 'phoneNumber' },
        { csvHeader: 'WhatsApp', serviceField: 'whatsappNumber' },
        { csvHeader: 'Telegram', serviceField: 'telegramUsername' },
        { csvHeader: 'Tier', serviceField: 'customFields.tier' },
      ],
      duplicateHandling: 'update',
    });
    const done = await waitForImport(s, up.import.id);
    expect(done).toMatchObject({ status: 'completed', newCount: 1, duplicateCount: 2 });

    const old = (await s.http.get(`/api/v1/user/contacts/${existing.contact.id}`)).body.data;
    expect(old).toMatchObject({
      firstName: 'New',
      lastName: 'Name',
      notes: 'keep me',
      customFields: { a: '1', tier: 'gold' },
    });
    // The number it already had is not added twice; the new channels are.
    expect(old.smsNumbers.map((x: { phoneNumber: string }) => x.phoneNumber)).toEqual([
      '+14155550111',
    ]);
    expect(old.whatsappAccounts).toMatchObject([
      { phoneNumber: '+447700900123', countryCode: 'GB', isPrimary: true },
    ]);
    expect(old.telegramAccounts).toMatchObject([
      { username: '@newhandle', phoneNumber: '+14155550111' },
    ]);

    const list = await s.http.get('/api/v1/user/contacts?search=fresh@date.test');
    expect(list.body.data).toHaveLength(1);
    const fresh = (await s.http.get(`/api/v1/user/contacts/${list.body.data[0].id}`)).body.data;
    expect(fresh).toMatchObject({
      firstName: 'Fresh',
      lastName: 'Two',
      displayName: 'Fresh Two',
      notes: 'second row',
      customFields: { tier: 'silver' },
    });
    expect(fresh.smsNumbers.map((x: { phoneNumber: string }) => x.phoneNumber).sort()).toEqual([
      '+33612345678',
      '+33612345679',
    ]);
    expect(fresh.telegramAccounts).toMatchObject([{ username: 'fresh_tg' }]);
  });

  it('duplicateHandling skip: a duplicate keeps its fields and still joins the list and tags', async () => {
    const s = await createSession(app);
    const existing = await app.get(ContactsService).create(asOrgId(s.org.id), {
      firstName: 'Kept',
      emails: [{ email: 'skip@me.test' }],
    });
    const up = await upload(s, line(['email', 'first']) + line(['skip@me.test', 'Changed']));
    await start(s, up.import.id, {
      fieldMappings: [
        { csvHeader: 'email', serviceField: 'email' },
        { csvHeader: 'first', serviceField: 'firstName' },
      ],
      listName: 'Skippers',
      tags: ['skipped'],
    });
    const done = await waitForImport(s, up.import.id);
    expect(done).toMatchObject({ status: 'completed', newCount: 0, duplicateCount: 1 });
    const c = (await s.http.get(`/api/v1/user/contacts/${existing.contact.id}`)).body.data;
    expect(c.firstName).toBe('Kept');
    expect(c.tags).toEqual(['skipped']);
    expect(c.listMemberships).toHaveLength(1);
  });

  it('commits batches in file order: errors file and counters exact over many batches', async () => {
    const s = await createSession(app);
    // 6,000 new contacts with an invalid row every 97th: the errors file and the counters must
    // come out in file order, batch after batch.
    let csv = line(['email', 'status']);
    const invalid: number[] = [];
    for (let i = 1; i <= 6000; i++) {
      const bad = i % 97 === 0;
      if (bad) invalid.push(i);
      csv += line([`pipe${i}@pipeline.test`, bad ? 'deleted' : 'active']);
    }
    const up = await upload(s, csv);
    await start(s, up.import.id, {
      fieldMappings: [
        { csvHeader: 'email', serviceField: 'email' },
        { csvHeader: 'status', serviceField: 'status' },
      ],
      allowPartialUpload: true,
      tags: ['piped'],
    });
    const done = await waitForImport(s, up.import.id, { timeoutMs: 120_000 });
    expect(done).toMatchObject({
      status: 'completed_with_errors',
      processedRows: 6000,
      errorCount: invalid.length,
      newCount: 6000 - invalid.length,
      successCount: 6000 - invalid.length,
      duplicateCount: 0,
    });
    expect(await contactsOf(s)).toBe(6000 - invalid.length);
    const errors = await downloadErrors(s, up.import.id);
    expect(errors.rows.slice(1).map((r) => Number(r[2]))).toEqual(invalid);
    const [tag] = (await ds.query(
      `SELECT (SELECT coalesce(sum(total), 0)::int FROM contact_tag_counters WHERE tag_id = t.id)
              AS contact_count
         FROM contact_tags t WHERE t.organization_id = $1 AND t.name = 'piped'`,
      [s.org.id],
    )) as { contact_count: number }[];
    expect(tag.contact_count).toBe(6000 - invalid.length);
  });

  it('retries a batch whole after a concurrent write of one of its emails, in file order', async () => {
    const s = await createSession(app);
    // The first email insert of this organization's import waits, then fails as a concurrent
    // write of one of its emails would: the batch rolls back and is retried whole, and the
    // batches after it (the next one waits for its turn meanwhile) commit after it. A sequence, not a table, counts the calls: it is
    // not rolled back with the failing transaction.
    const fn = `test_fail_once_${s.org.id.replace(/-/g, '')}`;
    await ds.query(`CREATE SEQUENCE ${fn}_seq`);
    await ds.query(`
      CREATE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF EXISTS (SELECT 1 FROM new_rows WHERE organization_id = '${s.org.id}')
           AND nextval('${fn}_seq') = 1 THEN
          PERFORM pg_sleep(1.5);
          RAISE EXCEPTION 'injected concurrent write' USING ERRCODE = '23505',
            CONSTRAINT = 'contact_emails_organization_id_email_hash_key';
        END IF;
        RETURN NULL;
      END $$`);
    await ds.query(`
      CREATE TRIGGER ${fn} AFTER INSERT ON contact_emails
      REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ${fn}()`);
    try {
      let csv = line(['email', 'status']);
      for (let i = 1; i <= 3000; i++) csv += line([`redo${i}@redo.test`, 'active']);
      const up = await upload(s, csv);
      await start(s, up.import.id, {
        fieldMappings: [
          { csvHeader: 'email', serviceField: 'email' },
          { csvHeader: 'status', serviceField: 'status' },
        ],
        tags: ['redo'],
      });
      const done = await waitForImport(s, up.import.id, { timeoutMs: 120_000 });
      expect(done).toMatchObject({
        status: 'completed',
        processedRows: 3000,
        newCount: 3000,
        successCount: 3000,
        errorCount: 0,
        duplicateCount: 0,
      });
      // The failure was injected, and the statements after it (the retry included) ran.
      const [{ calls }] = (await ds.query(`SELECT last_value AS calls FROM ${fn}_seq`)) as {
        calls: string;
      }[];
      expect(Number(calls)).toBeGreaterThanOrEqual(2);
    } finally {
      await ds.query(`DROP TRIGGER ${fn} ON contact_emails`);
      await ds.query(`DROP FUNCTION ${fn}()`);
      await ds.query(`DROP SEQUENCE ${fn}_seq`);
    }
    expect(await contactsOf(s)).toBe(3000);
    const [{ n: distinctEmails }] = (await ds.query(
      `SELECT count(DISTINCT email_hash)::int AS n FROM contact_emails WHERE organization_id = $1`,
      [s.org.id],
    )) as { n: number }[];
    expect(distinctEmails).toBe(3000);
    const [tag] = (await ds.query(
      `SELECT (SELECT coalesce(sum(total), 0)::int FROM contact_tag_counters WHERE tag_id = t.id)
              AS contact_count
         FROM contact_tags t WHERE t.organization_id = $1 AND t.name = 'redo'`,
      [s.org.id],
    )) as { contact_count: number }[];
    expect(tag.contact_count).toBe(3000);
    const [{ n: assigned }] = (await ds.query(
      `SELECT count(*)::int AS n FROM contacts c JOIN contact_tags t ON t.id = ANY(c.tag_ids)
        WHERE c.organization_id = $1 AND t.name = 'redo'`,
      [s.org.id],
    )) as { n: number }[];
    expect(assigned).toBe(3000);
  });

  it('cancel stops a processing import at its next batch; committed batches stay', async () => {
    const s = await createSession(app);
    let csv = line(['email']);
    for (let i = 1; i <= 30_000; i++) csv += line([`c${i}@cancel.test`]);
    const up = await upload(s, csv);
    await start(s, up.import.id, {
      fieldMappings: [{ csvHeader: 'email', serviceField: 'email' }],
    });
    await waitForImport(s, up.import.id, {
      timeoutMs: 60_000,
      everyMs: 20,
      until: (i) => i.processedRows > 0,
    });
    const res = await s.http.post(`${IMPORTS}/${up.import.id}/cancel`);
    expect(res.status).toBe(200);
    expect(res.body.data.import.status).toBe('cancelled');
    const after = await getImport(s, up.import.id);
    expect(after.status).toBe('cancelled');
    expect(after.processedRows).toBeLessThan(30_000);
    // What the counters say was written is exactly what is there, and nothing more arrives.
    await holdsFor(
      async () => {
        expect(await getImport(s, up.import.id)).toMatchObject({
          status: 'cancelled',
          newCount: after.newCount,
        });
        expect(await contactsOf(s)).toBe(after.newCount);
      },
      { forMs: 2000, everyMs: 100 },
    );
  });

  it('CLI import-file uploads through the service, processes, and prints the import', async () => {
    const s = await createSession(app);
    const dir = mkdtempSync(join(tmpdir(), 'mp-cli-import-'));
    const file = join(dir, 'people.csv');
    writeFileSync(
      file,
      line(['Email', 'First', 'Tags']) +
        line(['cli1@cli.test', 'One', 'x;y']) +
        line(['cli2@cli.test', 'Two', '']) +
        line(['not-an-email', 'Three', '']),
    );
    const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const out = (await runCli([
        'import-file',
        '--org',
        s.org.id,
        '--file',
        file,
        '--map',
        'Email=email,First=firstName,Tags=tags',
        '--list',
        'CLI list',
        '--tags',
        'cli',
        '--partial',
      ])) as { import: Record<string, unknown> };
      expect(out.import).toMatchObject({
        status: 'completed_with_errors',
        fileName: 'people.csv',
        totalRows: 3,
        newCount: 2,
        errorCount: 1,
        listName: 'CLI list',
        tags: ['cli'],
      });
      const printed = stderr.mock.calls.map((c) => String(c[0])).join('');
      expect(printed).toMatch(/100\.0% 3\/3 rows/);
      expect(printed).toMatch(/import completed_with_errors/);
    } finally {
      stderr.mockRestore();
      rmSync(dir, { recursive: true, force: true });
    }
    expect(await contactsOf(s)).toBe(2);
  });
});
