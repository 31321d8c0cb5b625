// Reading uploaded CSV files (§7: UTF-8 with or without BOM, `,` or `;`, quoted fields with
// embedded newlines) with csv-parse's streaming parser, and writing the errors file. Nothing here
// holds a whole file in memory: the preview reads the first records only, the worker streams.
import { parse, Parser } from 'csv-parse';
import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { ValidationFailedError } from '../errors/domain-errors';

export type Delimiter = ',' | ';';

/** A record's fields plus the byte offset just after it (from the start of the file). */
export interface CsvRecord {
  record: string[];
  /** Byte offset where the next record starts. */
  endByte: number;
}

export const MAX_COLUMNS = 500;
/** A record longer than this is a broken file (an unclosed quote swallowing the rest), not data. */
export const MAX_RECORD_BYTES = 1_000_000;
const SNIFF_BYTES = 64 * 1024;

/** `;` when the first line (outside quotes) has more semicolons than commas, else `,`. */
export function detectDelimiter(text: string): Delimiter {
  let commas = 0;
  let semicolons = 0;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '"') quoted = !quoted;
    else if (!quoted && (ch === '\n' || ch === '\r')) break;
    else if (!quoted && ch === ',') commas++;
    else if (!quoted && ch === ';') semicolons++;
  }
  return semicolons > commas ? ';' : ',';
}

function parserOptions(delimiter: Delimiter, atStart: boolean) {
  return {
    delimiter,
    bom: atStart,
    info: true as const,
    relax_column_count: true,
    skip_empty_lines: true,
    max_record_size: MAX_RECORD_BYTES,
  };
}

/** The reason a parser error gives, as one readable sentence. */
export function describeCsvError(err: unknown): string {
  const message = (err as Error)?.message ?? String(err);
  return `The file is not valid CSV: ${message}`;
}

/** csv-parse from `fromByte` (a record's start; 0: the file's start, BOM skipped). */
export async function* parseCsv(
  path: string,
  delimiter: Delimiter,
  fromByte: number,
): AsyncGenerator<CsvRecord> {
  const parser: Parser = createReadStream(path, {
    start: fromByte,
    highWaterMark: 256 * 1024,
  }).pipe(parse(parserOptions(delimiter, fromByte === 0)));
  try {
    for await (const out of parser as AsyncIterable<{
      record: string[];
      info: { bytes: number };
    }>) {
      yield { record: out.record, endByte: fromByte + out.info.bytes };
    }
  } finally {
    parser.destroy();
  }
}

const DQ = 0x22;
const CR = 0x0d;
const LF = 0x0a;
/** A line longer than this is left to csv-parse (well under MAX_RECORD_BYTES). */
const FAST_MAX_LINE = 256 * 1024;

/**
 * One record of `buf` from `pos` that has a quote, read as csv-parse reads it: fields separated
 * by the delimiter, a quoted field's `""` a quote, the record ending with the line. `more`: the
 * record may go on past the buffer; `bad`: not the ordinary shape (csv-parse decides).
 */
function quotedRecord(
  buf: Buffer,
  pos: number,
  delim: number,
  crlf: boolean,
  eof: boolean,
): { record: string[]; next: number } | 'more' | 'bad' {
  const record: string[] = [];
  let i = pos;
  for (;;) {
    let field: string;
    if (buf[i] === DQ) {
      let value = '';
      let from = i + 1;
      for (;;) {
        const q = buf.indexOf(DQ, from);
        if (q < 0 || q - pos > FAST_MAX_LINE) return q < 0 && !eof ? 'more' : 'bad';
        if (q + 1 >= buf.length && !eof) return 'more';
        if (buf[q + 1] === DQ) {
          value += buf.toString('utf8', from, q + 1);
          from = q + 2;
          continue;
        }
        value += buf.toString('utf8', from, q);
        i = q + 1;
        break;
      }
      field = value;
    } else {
      let j = i;
      while (j < buf.length) {
        const b = buf[j];
        if (b === delim || b === LF || b === CR) break;
        if (b === DQ) return 'bad';
        j++;
      }
      if (j >= buf.length && !eof) return 'more';
      field = buf.toString('utf8', i, j);
      i = j;
    }
    record.push(field);
    if (i >= buf.length) return eof ? { record, next: i } : 'more';
    const b = buf[i];
    if (b === delim) {
      i++;
      continue;
    }
    if (crlf) {
      if (b !== CR) return 'bad';
      if (i + 1 >= buf.length) return eof ? 'bad' : 'more';
      if (buf[i + 1] !== LF) return 'bad';
      return { record, next: i + 2 };
    }
    if (b !== LF) return 'bad';
    return { record, next: i + 1 };
  }
}

/**
 * Streams the records of a file from `fromByte` (0: the start, BOM skipped), each with the byte
 * offset after it. Lines of the ordinary shape (all `\n` or all `\r\n` endings, quotes only
 * around whole fields, under 256 KB) are split here: a line without a quote is one string split
 * on the delimiter, several times cheaper than csv-parse, which allocates per character run.
 * At the first line of any other shape the rest of the file goes to csv-parse, so what this
 * yields, and every error, is csv-parse's (csv-count.spec.ts compares the two on random files).
 */
export async function* readCsv(
  path: string,
  delimiter: Delimiter,
  fromByte = 0,
): AsyncGenerator<CsvRecord> {
  const delim = delimiter.charCodeAt(0);
  const stream = createReadStream(path, { start: fromByte, highWaterMark: 256 * 1024 });
  /** File offset of buf[0]. */
  let base = fromByte;
  let buf: Buffer = Buffer.alloc(0);
  /** 0: not known yet, 1: `\n`, 2: `\r\n`. */
  let endings = 0;
  let atFileStart = fromByte === 0;
  let fallbackAt = -1;
  let done = false;
  /** endByte of the last record yielded. */
  let yielded = -1;
  /**
   * Records read but not yielded yet: those completed in a chunk are yielded once the next chunk
   * (or the end of the file) is read without finding an odd line. csv-parse, reading the same
   * chunks, yields none of a chunk in which it fails, and it looks at a chunk's last, unfinished
   * line with that chunk (the preview's verdict on a file broken in its first chunk must stay
   * csv-parse's).
   */
  const held: CsvRecord[] = [];
  /** How many of `held` were completed before the current chunk. */
  let older = 0;
  try {
    const chunks = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    while (fallbackAt < 0) {
      const next = await chunks.next();
      const eof = next.done === true;
      if (!eof) buf = buf.length ? Buffer.concat([buf, next.value]) : next.value;
      let pos = 0;
      if (atFileStart) {
        if (buf.length < 3 && !eof) continue;
        atFileStart = false;
        if (buf.length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) pos = 3;
      }
      let nextCr = buf.indexOf(CR, pos);
      let nextDq = buf.indexOf(DQ, pos);
      while (pos < buf.length) {
        if (nextCr >= 0 && nextCr < pos) nextCr = buf.indexOf(CR, pos);
        if (nextDq >= 0 && nextDq < pos) nextDq = buf.indexOf(DQ, pos);
        let lf = buf.indexOf(LF, pos);
        if (lf < 0) {
          if (!eof) break;
          lf = buf.length;
        }
        if (lf - pos > FAST_MAX_LINE) {
          fallbackAt = base + pos;
          break;
        }
        if (endings === 0 && lf < buf.length)
          endings = lf > pos && buf[lf - 1] === CR && (nextDq < 0 || nextDq >= lf) ? 2 : 1;
        let end = lf;
        if (endings === 2 && lf < buf.length) {
          if (lf === pos || buf[lf - 1] !== CR) {
            fallbackAt = base + pos;
            break;
          }
          end = lf - 1;
        }
        if (nextDq >= 0 && nextDq < end) {
          const r = quotedRecord(buf, pos, delim, endings === 2, eof);
          if (r === 'more') break;
          if (r === 'bad' || (endings === 0 && r.next < buf.length)) {
            fallbackAt = base + pos;
            break;
          }
          held.push({ record: r.record, endByte: base + r.next });
          pos = r.next;
          continue;
        }
        if (nextCr >= 0 && nextCr < end) {
          fallbackAt = base + pos;
          break;
        }
        if (end > pos) {
          held.push({
            record: buf.toString('utf8', pos, end).split(delimiter),
            endByte: base + Math.min(lf + 1, buf.length),
          });
        }
        pos = Math.min(lf + 1, buf.length);
      }
      if (fallbackAt >= 0) break;
      const ready = eof ? held.length : older;
      for (let k = 0; k < ready; k++) yield held[k];
      if (ready) yielded = held[ready - 1].endByte;
      held.splice(0, ready);
      older = held.length;
      base += pos;
      buf = buf.subarray(pos);
      if (eof) {
        done = true;
        break;
      }
    }
  } finally {
    stream.destroy();
  }
  if (done || fallbackAt < 0) return;
  // The parser reads from the same start as this reader did (its record delimiter is found in
  // the first line, so starting it at the odd line could read that line differently) and in the
  // same chunks; the records already yielded, identical, are skipped.
  for await (const rec of parseCsv(path, delimiter, fromByte)) if (rec.endByte > yielded) yield rec;
}

export interface CsvPreview {
  delimiter: Delimiter;
  headers: string[];
  /** The first data rows (at most `rows`). */
  rows: string[][];
}

function badFile(message: string): ValidationFailedError {
  return new ValidationFailedError([{ field: 'file', rule: 'type', message }], message);
}

/**
 * Checks an uploaded file is a CSV this service can import and returns its header and first rows.
 * Every refusal is a 422 on `file` with a message a person can act on.
 */
export async function inspectCsv(path: string, rows = 5): Promise<CsvPreview> {
  const { size } = await stat(path);
  if (size === 0) throw badFile('The file is empty (0 bytes)');
  const fh = await open(path, 'r');
  let head: Buffer;
  try {
    const buf = Buffer.alloc(Math.min(size, SNIFF_BYTES));
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    head = buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
  if (head.includes(0)) throw badFile('The file is not a CSV text file: it contains binary data');
  try {
    // stream: the sniffed block may end inside a multi-byte character.
    new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: size > head.length });
  } catch {
    throw badFile('The file is not UTF-8 text');
  }
  const delimiter = detectDelimiter(head.toString('utf8').replace(/^\uFEFF/, ''));
  const records: string[][] = [];
  try {
    for await (const { record } of readCsv(path, delimiter)) {
      records.push(record);
      if (records.length > rows) break;
    }
  } catch (err) {
    throw badFile(describeCsvError(err));
  }
  const headers = (records[0] ?? []).map((h) => h.trim());
  if (!headers.some(Boolean)) throw badFile('The file has no header row');
  if (headers.length > MAX_COLUMNS)
    throw badFile(`The file has ${headers.length} columns; at most ${MAX_COLUMNS} are supported`);
  const dup = headers.find((h, i) => h && headers.indexOf(h) !== i);
  if (dup !== undefined) throw badFile(`The header row names the column "${dup}" twice`);
  if (records.length < 2) throw badFile('The file has a header row but no data rows');
  return { delimiter, headers, rows: records.slice(1, rows + 1) };
}

// Spreadsheet formula injection (CWE-1236): a cell a spreadsheet would evaluate is made text.
const FORMULA_START = /^[=+\-@\t\r]/;

/** One CSV field: formula-looking cells prefixed with `'`, quoted when needed. */
export function csvCell(value: string): string {
  const safe = FORMULA_START.test(value) ? `'${value}` : value;
  return /[",\r\n;]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** One CSV line (comma-separated, CRLF-terminated as RFC 4180 says). */
export function csvLine(cells: string[]): string {
  return cells.map(csvCell).join(',') + '\r\n';
}

/** A line longer than this sends countCsvRecords to the parser (well under MAX_RECORD_BYTES). */
const FAST_COUNT_MAX_LINE = 256 * 1024;

/**
 * The number of records readCsv(path, delimiter) yields, without parsing: one pass over the
 * bytes, a few operations a byte (the parser allocates every field of every record). Only for
 * files whose shape leaves no doubt about what the parser does: line endings all `\n` or all
 * `\r\n` (no lone `\r`, no mix), quotes only around whole fields (`""` inside), every quoted
 * field closed and followed by the delimiter or the line's end, no line over 256 KB. Then the
 * parser would raise no error and yield one record per non-empty line (quoted line breaks
 * inside a field, the BOM skipped). Anything else returns null: the caller parses the file to
 * count its records and to report its error, as before. `onProgress` gets the records counted
 * so far after each chunk read.
 */
export async function countCsvRecords(
  path: string,
  delimiter: Delimiter,
  onProgress: (records: number) => Promise<void> = async () => undefined,
): Promise<number | null> {
  const DQ = 0x22;
  const CR = 0x0d;
  const LF = 0x0a;
  const DELIM = delimiter.charCodeAt(0);
  /** 0 unknown, 1 only LF, 2 only CRLF. */
  let endings = 0;
  let records = 0;
  /** Bytes of the current line (record) so far. */
  let lineBytes = 0;
  let quoted = false;
  /** Inside a quoted field, the previous byte was a quote (closing, or the first of `""`). */
  let quoteSeen = false;
  /** At the start of a field (a quote may open it). */
  let fieldStart = true;
  /** The previous byte was CR (CRLF files: LF must follow). */
  let afterCr = false;
  let first = true;
  const stream = createReadStream(path, { highWaterMark: 1024 * 1024 });
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      let i = 0;
      if (first) {
        first = false;
        if (chunk.length >= 3 && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) i = 3;
      }
      const n = chunk.length;
      for (; i < n; i++) {
        const b = chunk[i];
        if (afterCr) {
          if (b !== LF) return null;
          afterCr = false;
        } else if (b === CR) {
          if (endings === 1) return null;
          endings = 2;
          afterCr = true;
          if (quoteSeen) {
            quoteSeen = false;
            quoted = false;
          }
          if (!quoted) continue;
          lineBytes++;
          continue;
        } else if (b === LF && endings !== 1) {
          if (endings === 2) return null;
          endings = 1;
        }
        if (quoted) {
          if (quoteSeen) {
            quoteSeen = false;
            if (b === DQ) {
              // `""`: a quote inside the field.
              lineBytes++;
              continue;
            }
            // The quote before closed the field: what follows must end it.
            quoted = false;
            if (b !== DELIM && b !== LF) return null;
          } else {
            if (b === DQ) quoteSeen = true;
            if (++lineBytes > FAST_COUNT_MAX_LINE) return null;
            continue;
          }
        }
        if (b === LF) {
          if (lineBytes > 0) records++;
          lineBytes = 0;
          fieldStart = true;
        } else {
          if (++lineBytes > FAST_COUNT_MAX_LINE) return null;
          if (b === DELIM) fieldStart = true;
          else if (b === DQ) {
            if (!fieldStart) return null;
            quoted = true;
            fieldStart = false;
          } else fieldStart = false;
        }
      }
      await onProgress(records);
    }
  } finally {
    stream.destroy();
  }
  if (afterCr) return null;
  if (quoted && !quoteSeen) return null;
  if (lineBytes > 0) records++;
  return records;
}
