// Reading uploaded CSV files (§7) as a stream, and the CSV lines of the errors file.
import { CsvError, Parser } from 'csv-parse';
import { parse as parseSync } from 'csv-parse/sync';
import { isUtf8 } from 'node:buffer';
import type { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { ValidationFailedError } from '../errors/domain-errors';

export type Delimiter = ',' | ';';

/** The bytes of a file from `start` (inclusive) to `end` (exclusive; default: its end). */
export type ByteSource = (range: { start?: number; end?: number }) => Promise<Readable>;

/** A record's fields plus the byte offset just after it (from the start of the file). */
export interface CsvRecord {
  record: string[];
  /** Byte offset where the next record starts. */
  endByte: number;
  /**
   * Indexes of the fields whose bytes are not UTF-8 (their text holds U+FFFD where the bad bytes
   * were); absent when every field decoded.
   */
  undecodable?: number[];
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
    record_delimiter: ['\r\n', '\n', '\r'],
    bom: atStart,
    relax_column_count: true,
    skip_empty_lines: true,
    max_record_size: MAX_RECORD_BYTES,
  };
}

/** A record as the parser stream gives it: its fields, and where it ends. */
export interface ParsedRecord {
  record: string[];
  /** Bytes the parser had read when the record ended (its line ending included). */
  bytes: number;
}

/**
 * csv-parse's stream, each record given with the parser's byte count (`info.bytes`) as it stands
 * when the record is pushed: the parser sets it to the record's end just before, and pushes every
 * record on its own. The `info: true` option would give the same count by copying all of the
 * parser's counters into a new object per record, which costs more than parsing the record
 * (docs/performance.md).
 */
class RecordEndParser extends Parser {
  override push(chunk: unknown, encoding?: BufferEncoding): boolean {
    if (chunk === null) return super.push(chunk, encoding);
    const out: ParsedRecord = {
      record: chunk as string[],
      bytes: this.info.bytes,
    };
    return super.push(out, encoding);
  }
}

/**
 * A record ends at CRLF, LF or CR outside quotes, whichever the line uses (as spreadsheets read
 * it): a file whose lines end differently from its first one is not merged into one long row, and
 * a run resumed mid-file reads lines exactly as the first run did.
 */
export function csvParser(delimiter: Delimiter, atStart: boolean): Parser {
  return new RecordEndParser(parserOptions(delimiter, atStart));
}

/**
 * The fields of the record stored at [start, end) whose bytes are not UTF-8. The streaming parser
 * decodes fields as UTF-8, replacing a bad sequence with U+FFFD; only a record holding U+FFFD
 * (rare: a real one, or a replaced sequence) is parsed again as bytes to tell them apart, so the
 * common path pays one string search per field.
 */
async function undecodableFields(
  source: ByteSource,
  start: number,
  end: number,
  delimiter: Delimiter,
): Promise<number[]> {
  const bytes = await buffer(await source({ start, end }));
  const [fields] = parseSync(bytes, {
    ...parserOptions(delimiter, start === 0),
    encoding: null,
  }) as unknown as Buffer[][];
  return (fields ?? []).flatMap((f, i) => (isUtf8(f) ? [] : [i]));
}

/** Whether an error is the parser's verdict on the file (`INVALID_OPENING_QUOTE` and `CSV_…`). */
export function isCsvError(err: unknown): boolean {
  return err instanceof CsvError;
}

/** The reason a parser error gives, as one readable sentence. */
export function describeCsvError(err: unknown): string {
  const message = (err as Error)?.message ?? String(err);
  return `The file is not valid CSV: ${message}`;
}

/**
 * Streams the records of a file from `fromByte` (0: the start, BOM skipped; else the offset
 * where a record starts, a checkpoint).
 */
export async function* readCsv(
  source: ByteSource,
  delimiter: Delimiter,
  fromByte = 0,
): AsyncGenerator<CsvRecord> {
  const input = await source({ start: fromByte });
  const parser: Parser = csvParser(delimiter, fromByte === 0);
  // pipe() does not pass a read error on: without this, a file removed under the reader (an
  // import cancelled meanwhile) would be an uncaught error and a reader waiting forever.
  input.on('error', (err) => parser.destroy(err));
  input.pipe(parser);
  let start = fromByte;
  try {
    for await (const out of parser as AsyncIterable<ParsedRecord>) {
      const endByte = fromByte + out.bytes;
      const rec: CsvRecord = { record: out.record, endByte };
      if (out.record.some((f) => f.includes('\uFFFD'))) {
        const undecodable = await undecodableFields(source, start, endByte, delimiter);
        if (undecodable.length) rec.undecodable = undecodable;
      }
      start = endByte;
      yield rec;
    }
  } finally {
    input.destroy();
    parser.destroy();
  }
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
 * Checks an uploaded file of `size` bytes is a CSV this service can import and returns its header
 * and first rows. Every refusal is a 422 on `file` with a message a person can act on.
 */
export async function inspectCsv(source: ByteSource, size: number, rows = 5): Promise<CsvPreview> {
  if (size === 0) throw badFile('The file is empty (0 bytes)');
  const head = await buffer(await source({ start: 0, end: Math.min(size, SNIFF_BYTES) }));
  if (head.includes(0)) throw badFile('The file is not a CSV text file: it contains binary data');
  try {
    // stream: the sniffed block may end inside a multi-byte character.
    new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: size > head.length });
  } catch {
    throw badFile('The file is not UTF-8 text');
  }
  const delimiter = detectDelimiter(head.toString('utf8').replace(/^\uFEFF/, ''));
  const records: string[][] = [];
  let headerUndecodable = false;
  try {
    for await (const { record, undecodable } of readCsv(source, delimiter)) {
      if (!records.length) headerUndecodable = !!undecodable;
      records.push(record);
      if (records.length > rows) break;
    }
  } catch (err) {
    // A store that cannot be read (an outage) is no verdict on the file.
    if (!isCsvError(err)) throw err;
    throw badFile(describeCsvError(err));
  }
  // Only a header longer than the sniffed block can get here with such bytes.
  if (headerUndecodable) throw badFile('The file is not UTF-8 text');
  if (records[0]?.some((h) => h.includes('\0')))
    throw badFile('The file is not a CSV text file: it contains binary data');
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
