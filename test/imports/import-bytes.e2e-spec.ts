// Byte-level oddities past the preview's first 64 KB: a NUL byte, an invalid UTF-8 sequence and
// line endings that differ from the file's first one are row matters (an error row, or rows split
// where the line ends), never a failed import or a silently altered value.
import { INestApplication } from '@nestjs/common';
import { TestingModule } from '@nestjs/testing';
import { DataSource } from 'typeorm';
import { createTestApp } from '../support/app';
import { createSession, Session } from '../support/session';
import {
  downloadErrors,
  line,
  start,
  startInProcessWorker,
  upload,
  waitForImport,
} from './imports-support';

const MAP = [
  { csvHeader: 'email', serviceField: 'email' },
  { csvHeader: 'name', serviceField: 'firstName' },
  { csvHeader: 'plan', serviceField: 'customFields.plan' },
];

/** 3,000 valid rows (about 100 KB, past the preview's sniffed 64 KB), `odd`, then 200 more. */
function fileWith(odd: Buffer, tag: string): Buffer {
  let head = line(['email', 'name', 'plan']);
  for (let i = 1; i <= 3000; i++) head += line([`a${i}@${tag}.test`, `Name ${i}`, 'gold']);
  let tail = '';
  for (let i = 3002; i <= 3201; i++) tail += line([`a${i}@${tag}.test`, `Name ${i}`, 'gold']);
  expect(Buffer.byteLength(head)).toBeGreaterThan(64 * 1024);
  return Buffer.concat([Buffer.from(head), odd, Buffer.from(tail)]);
}

describe('Import rows with odd bytes past the first 64 KB', () => {
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

  async function session(): Promise<Session> {
    const s = await createSession(app);
    return s;
  }
  const contactsOf = async (s: Session) =>
    (
      (await ds.query(`SELECT count(*)::int AS n FROM contacts WHERE organization_id = $1`, [
        s.org.id,
      ])) as { n: number }[]
    )[0].n;

  const NUL_ROW = Buffer.concat([
    Buffer.from('a3001@nul.test,Bad'),
    Buffer.from([0]),
    Buffer.from('name,gold\n'),
  ]);

  it('a NUL byte in a cell is an error row; the rows after it are written', async () => {
    const s = await session();
    const up = await upload(s, fileWith(NUL_ROW, 'nul'));
    await start(s, up.import.id, { fieldMappings: MAP, allowPartialUpload: true });
    const done = await waitForImport(s, up.import.id, { timeoutMs: 60_000 });
    expect(done).toMatchObject({
      status: 'completed_with_errors',
      totalRows: 3201,
      processedRows: 3201,
      successCount: 3200,
      newCount: 3200,
      duplicateCount: 0,
      errorCount: 1,
      errorReason: null,
    });
    expect(await contactsOf(s)).toBe(3200);
    const [last] = (await ds.query(
      `SELECT count(*)::int AS n FROM contacts WHERE organization_id = $1 AND first_name = 'Name 3201'`,
      [s.org.id],
    )) as { n: number }[];
    expect(last.n).toBe(1);
    const errors = await downloadErrors(s, up.import.id);
    // The NUL shows as U+FFFD, so the errors file is text a person can fix and upload again.
    expect(errors.rows).toEqual([
      ['email', 'name', 'plan', 'row', 'error'],
      ['a3001@nul.test', 'Bad\uFFFDname', 'gold', '3001', 'firstName contains a NUL byte'],
    ]);
  });

  it('with allowPartialUpload false the NUL row fails the import and nothing is written', async () => {
    const s = await session();
    const up = await upload(s, fileWith(NUL_ROW, 'nulstrict'));
    await start(s, up.import.id, { fieldMappings: MAP, allowPartialUpload: false });
    const done = await waitForImport(s, up.import.id, { timeoutMs: 60_000 });
    expect(done).toMatchObject({
      status: 'failed',
      totalRows: 3201,
      processedRows: 1,
      errorCount: 1,
      successCount: 0,
    });
    expect(done.errorReason).toMatch(/row 3001: firstName contains a NUL byte/);
    expect(await contactsOf(s)).toBe(0);
  });

  it('an invalid UTF-8 sequence in a mapped cell is an error row, not a replaced character', async () => {
    const s = await session();
    const odd = Buffer.concat([
      Buffer.from('a3001@utf.test,gold,'),
      Buffer.from([0xc3, 0x28]),
      Buffer.from('\n'),
    ]);
    // The bad bytes sit in the custom field here (header order email,name,plan: name = "gold").
    const up = await upload(s, fileWith(odd, 'utf'));
    await start(s, up.import.id, { fieldMappings: MAP, allowPartialUpload: true });
    const done = await waitForImport(s, up.import.id, { timeoutMs: 60_000 });
    expect(done).toMatchObject({
      status: 'completed_with_errors',
      processedRows: 3201,
      newCount: 3200,
      errorCount: 1,
    });
    const errors = await downloadErrors(s, up.import.id);
    expect(errors.rows.slice(1)).toEqual([
      ['a3001@utf.test', 'gold', '\uFFFD(', '3001', 'customFields.plan is not valid UTF-8 text'],
    ]);
    const [bad] = (await ds.query(
      `SELECT count(*)::int AS n FROM contacts WHERE organization_id = $1
          AND custom_fields::text LIKE '%' || chr(65533) || '%'`,
      [s.org.id],
    )) as { n: number }[];
    expect(bad.n).toBe(0);
  });

  it('a line ending unlike the first one still ends the row (CR, LF or CRLF outside quotes)', async () => {
    const s = await session();
    // The file's first line ends with CRLF; later rows end with a lone LF and a lone CR, and one
    // quoted cell keeps its line break.
    const csv = Buffer.from(
      'email,name,plan\r\n' +
        'lf1@eol.test,Lf,gold\n' +
        'cr1@eol.test,Cr,gold\r' +
        'crlf@eol.test,"Two\r\nlines",gold\r\n' +
        'last@eol.test,Last,gold\r\n',
    );
    const up = await upload(s, csv);
    await start(s, up.import.id, {
      fieldMappings: [
        { csvHeader: 'email', serviceField: 'email' },
        { csvHeader: 'name', serviceField: 'notes' },
        { csvHeader: 'plan', serviceField: 'customFields.plan' },
      ],
      allowPartialUpload: true,
    });
    const done = await waitForImport(s, up.import.id);
    expect(done).toMatchObject({
      status: 'completed',
      totalRows: 4,
      newCount: 4,
      errorCount: 0,
    });
    const notes = (await ds.query(
      `SELECT notes FROM contacts WHERE organization_id = $1 ORDER BY notes`,
      [s.org.id],
    )) as { notes: string }[];
    expect(notes.map((n) => n.notes)).toEqual(['Cr', 'Last', 'Lf', 'Two\r\nlines']);
  });
});
