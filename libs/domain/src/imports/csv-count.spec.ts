import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { countCsvRecords, parseCsv, readCsv } from './csv-file';

/** What the parser says: its record count, or that it refuses the file. */
async function parsed(path: string, delimiter: ',' | ';'): Promise<number | 'error'> {
  let n = 0;
  try {
    for await (const _ of readCsv(path, delimiter)) n++;
  } catch {
    return 'error';
  }
  return n;
}

describe('countCsvRecords', () => {
  let dir: string;
  let seq = 0;
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'csv-count-spec-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = (content: string | Buffer) => {
    const path = join(dir, `f${seq++}.csv`);
    writeFileSync(path, content);
    return path;
  };

  it.each([
    ['plain LF', 'email,name\na@b.c,Ann\nb@b.c,Bob\n', ',', 3],
    ['no final line break', 'email,name\na@b.c,Ann', ',', 2],
    ['CRLF with BOM', '\uFEFFemail;name\r\na@b.c;Ann\r\n\r\nb@b.c;"Bo;b"\r\n', ';', 3],
    ['empty lines skipped', '\n\nh\n\n1\n\n', ',', 2],
    ['quoted line breaks and quotes', 'h,n\n"a\nb","say ""hi"""\n"",x\n', ',', 3],
    ['a line of only a delimiter or an empty quoted field', 'h\n,\n""\n', ',', 3],
    ['a quoted field at the end of the file', 'h\n"x"', ',', 2],
  ])('counts %s as the parser does', async (_name, content, delimiter, expected) => {
    const path = file(content);
    await expect(parsed(path, delimiter as ',')).resolves.toBe(expected);
    await expect(countCsvRecords(path, delimiter as ',')).resolves.toBe(expected);
  });

  it.each([
    ['an unclosed quote', 'h\n"abc\n'],
    ['a quote inside a field', 'h\nab"c\n'],
    ['text after a closing quote', 'h\n"ab"c\n'],
    ['mixed line endings', 'h\r\na\nb\r\n'],
    ['a lone CR', 'h\ra\rb'],
    ['a line over 256 KB', `h\n${'x'.repeat(300 * 1024)}\n`],
  ])('leaves %s to the parser (null)', async (_name, content) => {
    await expect(countCsvRecords(file(content), ',')).resolves.toBeNull();
  });

  it('reports progress per chunk read', async () => {
    const lines = Array.from({ length: 100_000 }, (_, i) => `user${i}@example.com,Name ${i}`);
    const path = file(`email,name\n${lines.join('\n')}\n`);
    const seen: number[] = [];
    await expect(
      countCsvRecords(path, ',', async (n) => {
        seen.push(n);
      }),
    ).resolves.toBe(100_001);
    expect(seen.length).toBeGreaterThan(1);
    expect(seen[seen.length - 1]).toBe(100_001);
  });

  it('never disagrees with the parser: 3,000 random small files', async () => {
    // A tiny deterministic generator, so a failure can be replayed.
    let state = 12345;
    const rand = (n: number) => {
      state = (state * 1103515245 + 12345) & 0x7fffffff;
      return state % n;
    };
    const pieces = ['a', 'é', ',', ';', '"', '""', '\n', '\r\n', '\r', ' ', 'xy'];
    let fast = 0;
    for (let k = 0; k < 3000; k++) {
      const len = 1 + rand(30);
      let s = '';
      for (let j = 0; j < len; j++) s += pieces[rand(pieces.length)];
      if (rand(10) === 0) s = '\uFEFF' + s;
      const delimiter = rand(2) ? ',' : ';';
      const path = file(s);
      const counted = await countCsvRecords(path, delimiter);
      if (counted === null) continue;
      fast++;
      const expected = await parsed(path, delimiter);
      if (expected !== counted)
        throw new Error(
          `${JSON.stringify(s)} (${delimiter}): parser ${expected}, count ${counted}`,
        );
    }
    // The generator makes enough well-formed files for the comparison to mean something.
    expect(fast).toBeGreaterThan(200);
  }, 120_000);
});

describe('readCsv (fast lines, csv-parse for the rest)', () => {
  let dir: string;
  let seq = 0;
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'csv-read-spec-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function collect(gen: AsyncGenerator<{ record: string[]; endByte: number }>) {
    const out: [string[], number][] = [];
    try {
      for await (const r of gen) out.push([r.record, r.endByte]);
    } catch (err) {
      out.push([['error', (err as Error).message], -1]);
    }
    return out;
  }

  it('yields what csv-parse yields, records, offsets and errors: 3,000 random files, from the start and from a record boundary', async () => {
    let state = 777;
    const rand = (n: number) => {
      state = (state * 1103515245 + 12345) & 0x7fffffff;
      return state % n;
    };
    const pieces = [
      'a',
      'é',
      ',',
      ';',
      '"',
      '""',
      '\n',
      '\n',
      '\r\n',
      '\r',
      ' ',
      'xy',
      'a,b',
      '"q"',
    ];
    for (let k = 0; k < 3000; k++) {
      const len = 1 + rand(40);
      let s = '';
      for (let j = 0; j < len; j++) s += pieces[rand(pieces.length)];
      if (rand(10) === 0) s = '\uFEFF' + s;
      const delimiter = rand(2) ? ',' : ';';
      const path = join(dir, `r${seq++}.csv`);
      writeFileSync(path, s);
      const expected = await collect(parseCsv(path, delimiter, 0));
      const got = await collect(readCsv(path, delimiter, 0));
      if (JSON.stringify(got) !== JSON.stringify(expected))
        throw new Error(
          `${JSON.stringify(s)} (${delimiter}): parser ${JSON.stringify(expected)}, fast ${JSON.stringify(got)}`,
        );
      // Resuming after a record, as the runner does from its checkpoint.
      const ok = expected.filter(([, end]) => end > 0);
      if (ok.length > 1) {
        const from = ok[rand(ok.length - 1)][1];
        const e2 = await collect(parseCsv(path, delimiter, from));
        const g2 = await collect(readCsv(path, delimiter, from));
        if (JSON.stringify(g2) !== JSON.stringify(e2))
          throw new Error(
            `${JSON.stringify(s)} from ${from} (${delimiter}): parser ${JSON.stringify(e2)}, fast ${JSON.stringify(g2)}`,
          );
      }
    }
  }, 180_000);

  it('reads a large ordinary file across chunk boundaries as csv-parse does', async () => {
    const lines = Array.from(
      { length: 50_000 },
      (_, i) => `user${i}@example.com,"Name, ${i}",é${i},"say ""${i}"""`,
    );
    const path = join(dir, 'big.csv');
    writeFileSync(path, `\uFEFFemail,name,x,y\r\n${lines.join('\r\n')}\r\n`);
    expect(await collect(readCsv(path, ','))).toEqual(await collect(parseCsv(path, ',', 0)));
  });
});
