import { createReadStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import {
  ByteSource,
  csvCell,
  csvLine,
  csvParser,
  detectDelimiter,
  isCsvError,
  ParsedRecord,
  readCsv,
} from './csv-file';

/** A local file's bytes, as the object store hands them out. */
const file =
  (path: string): ByteSource =>
  async ({ start = 0, end }) =>
    end !== undefined && end <= start
      ? Readable.from([])
      : createReadStream(path, { start, end: end === undefined ? undefined : end - 1 });

async function all(path: string, delimiter: ',' | ';', from = 0) {
  const out: { record: string[]; endByte: number }[] = [];
  for await (const r of readCsv(file(path), delimiter, from))
    out.push({ record: r.record, endByte: r.endByte });
  return out;
}

describe('csv-file', () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'csv-file-spec-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each([
    ['a,b,c\n1;2', ','],
    ['a;b;c\n1,2', ';'],
    ['"x,y";b;c', ';'],
    ['"a;b",c', ','],
    ['single', ','],
  ])('detects the delimiter of %j as %j', (text, want) => {
    expect(detectDelimiter(text)).toBe(want);
  });

  it('reads BOM, CRLF, quoted newlines and blank lines; endByte lets a reader resume', async () => {
    const path = join(dir, 'a.csv');
    writeFileSync(path, '\uFEFFname;note\r\nAnn;"two\nlines"\r\n\r\nBob;"say ""hi"""\r\nCy;x');
    const records = await all(path, ';');
    expect(records.map((r) => r.record)).toEqual([
      ['name', 'note'],
      ['Ann', 'two\nlines'],
      ['Bob', 'say "hi"'],
      ['Cy', 'x'],
    ]);
    // Resuming after "Ann" yields exactly the records after it.
    const resumed = await all(path, ';', records[1].endByte);
    expect(resumed.map((r) => r.record)).toEqual([
      ['Bob', 'say "hi"'],
      ['Cy', 'x'],
    ]);
    expect(resumed.map((r) => r.endByte)).toEqual(records.slice(2).map((r) => r.endByte));
  });

  it('ends a record at CRLF, LF or CR outside quotes, even split across chunks', async () => {
    const input = Buffer.from('a,b\r\n1,x\n2,y\r3,"q\r\nr"\r\n4,z\r\n');
    const parser = csvParser(',', true);
    const out: string[][] = [];
    parser.on('data', (r: { record: string[] }) => out.push(r.record));
    const ended = new Promise((resolve) => parser.on('end', resolve));
    // One byte per chunk: a CRLF split between two chunks is still one line ending.
    for (let i = 0; i < input.length; i++) parser.write(input.subarray(i, i + 1));
    parser.end();
    await ended;
    expect(out).toEqual([
      ['a', 'b'],
      ['1', 'x'],
      ['2', 'y'],
      ['3', 'q\r\nr'],
      ['4', 'z'],
    ]);
  });

  it("gives each record's end byte as csv-parse's own info does, whatever the chunks", async () => {
    const input = Buffer.from('\uFEFFa,b\r\n1,x\n\n2,y\r3,"q\r\nr"\r\n\r\n4,é\r\n5,z');
    // What `parse({ ...the same options, info: true })` reports for each record.
    const expected = [
      { record: ['a', 'b'], bytes: 8 },
      { record: ['1', 'x'], bytes: 12 },
      { record: ['2', 'y'], bytes: 17 },
      { record: ['3', 'q\r\nr'], bytes: 27 },
      { record: ['4', 'é'], bytes: 35 },
      { record: ['5', 'z'], bytes: 38 },
    ];
    for (const chunkSize of [1, 3, input.length]) {
      const parser = csvParser(',', true);
      const out: ParsedRecord[] = [];
      parser.on('data', (r: ParsedRecord) => out.push(r));
      const ended = new Promise((resolve) => parser.on('end', resolve));
      for (let i = 0; i < input.length; i += chunkSize)
        parser.write(input.subarray(i, i + chunkSize));
      parser.end();
      await ended;
      expect(out).toEqual(expected);
    }
  });

  it('marks the fields whose bytes are not UTF-8, not a real U+FFFD', async () => {
    const path = join(dir, 'c.csv');
    writeFileSync(
      path,
      Buffer.concat([
        Buffer.from('a,b\nok,\uFFFD\n'),
        Buffer.from([0x78, 0xff, 0x2c, 0x79, 0x0a]), // x<FF>,y
      ]),
    );
    const records: { record: string[]; undecodable?: number[]; endByte: number }[] = [];
    for await (const r of readCsv(file(path), ',')) records.push(r);
    expect(records.map((r) => [r.record, r.undecodable])).toEqual([
      [['a', 'b'], undefined],
      [['ok', '\uFFFD'], undefined],
      [['x\uFFFD', 'y'], [0]],
    ]);
    // Resumed after the second record, as a run restarting from its checkpoint.
    const resumed: number[][] = [];
    for await (const r of readCsv(file(path), ',', records[1].endByte))
      resumed.push(r.undecodable!);
    expect(resumed).toEqual([[0]]);
  });

  it('rejects when the file cannot be read (removed under a reader), never hangs', async () => {
    await expect(all(join(dir, 'gone.csv'), ',')).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('surfaces an unclosed quote as an error', async () => {
    const path = join(dir, 'b.csv');
    writeFileSync(path, 'a,b\n1,"open\n2,3\n');
    await expect(all(path, ',')).rejects.toThrow(/Quote Not Closed/);
  });

  it.each([
    ['plain', 'plain'],
    ['=SUM(A1)', `'=SUM(A1)`],
    ['+33612345678', `'+33612345678`],
    ['-1', `'-1`],
    ['@cmd', `'@cmd`],
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['=1,2', `"'=1,2"`],
    ['two\nlines', '"two\nlines"'],
  ])('writes the cell %j as %j', (value, want) => {
    expect(csvCell(value)).toBe(want);
  });

  it('ends lines with CRLF', () => {
    expect(csvLine(['a', 'b'])).toBe('a,b\r\n');
  });
});

describe('isCsvError', () => {
  it("tells the parser's verdict on a file from a failure to read it", async () => {
    const parser = csvParser(',', true);
    const failure = new Promise((resolve) => parser.once('error', resolve));
    parser.end('"unterminated,field\n');
    expect(isCsvError(await failure)).toBe(true);
    // A quote inside an unquoted field: the one code without the `CSV_` prefix.
    const opening = csvParser(',', true);
    const quoteInField = new Promise((resolve) => opening.once('error', resolve));
    opening.end('a,b\nx"y,1\n');
    const quoted = await quoteInField;
    expect(quoted).toMatchObject({ code: 'INVALID_OPENING_QUOTE' });
    expect(isCsvError(quoted)).toBe(true);
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9000'), {
      code: 'ECONNREFUSED',
      syscall: 'connect',
    });
    expect(isCsvError(refused)).toBe(false);
    expect(isCsvError(null)).toBe(false);
  });
});
