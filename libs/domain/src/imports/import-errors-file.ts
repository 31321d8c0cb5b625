// The errors file of an import run (§7): invalid rows' cells plus `row` and `error`. An object
// store has no append, so a run writes it in parts, one object per batch with errors, named by
// the byte offset where it starts in the file; the import row's errors_file_bytes says how much
// of it committed batches hold. When the import ends, the parts become one object.
import { Readable } from 'node:stream';
import { NotFoundError } from '../errors/domain-errors';
import { ObjectNotFound, type StoredObject } from '../storage/object-store';
import { csvLine } from './csv-file';
import type { ImportStorage } from './import-storage';

/**
 * A line of the errors file: the row's cells cut or padded to the header's width, so `row` and
 * `error` always sit under their own header (the error names the real column count). A NUL is
 * written as U+FFFD, as bytes that are not UTF-8 already read: the file stays text a person can
 * fix and upload again.
 */
export function errorLine(record: string[], width: number, rowNo: number, error: string): string {
  const cells = record
    .slice(0, width)
    .map((c) => (c.includes('\0') ? c.replace(/\0/g, '\uFFFD') : c));
  while (cells.length < width) cells.push('');
  return csvLine([...cells, String(rowNo), error]);
}

const PART = /\/(\d{12})\.csv$/;

interface Part {
  key: string;
  offset: number;
  size: number;
}

/** The parts among `objects` in file order, up to the first gap. */
function contiguousParts(objects: StoredObject[]): Part[] {
  const found: Part[] = [];
  for (const o of objects) {
    const m = PART.exec(o.key);
    if (m) found.push({ key: o.key, offset: Number(m[1]), size: o.size });
  }
  found.sort((a, b) => a.offset - b.offset);
  let end = 0;
  const contiguous: Part[] = [];
  for (const p of found) {
    if (p.offset !== end) break;
    contiguous.push(p);
    end += p.size;
  }
  return contiguous;
}

/** The parts under `prefix` in file order, up to the first gap. */
async function parts(storage: ImportStorage, prefix: string): Promise<Part[]> {
  return contiguousParts(await storage.objects.list(prefix));
}

/** The first `bytes` of the parts, one after the other. */
async function* partsBytes(storage: ImportStorage, list: Part[], bytes: number) {
  for (const p of list) {
    if (p.offset >= bytes) return;
    yield* await storage.objects.read(p.key, { end: Math.min(p.size, bytes - p.offset) });
  }
}

/** The errors file of one run: a part written before each batch commits, dropped past the commit. */
export class ErrorsFile {
  /** Bytes written after `committed` (by the batches in flight, in file order). */
  pending = 0;

  private constructor(
    private readonly storage: ImportStorage,
    private readonly prefix: string,
    private readonly headers: string[],
    /** Length as of the last committed batch. */
    public committed: number,
  ) {}

  /**
   * The errors file of a run resuming with `committed` bytes: the parts past it (written by
   * batches that did not commit) are removed. Should the committed parts be missing, the file
   * starts over (the rows they held stay counted).
   */
  static async open(
    storage: ImportStorage,
    prefix: string,
    committed: number,
    headers: string[],
  ): Promise<ErrorsFile> {
    const objects = await storage.objects.list(prefix);
    const held = contiguousParts(objects)
      .filter((p) => p.offset < committed)
      .reduce((n, p) => n + p.size, 0);
    const file = new ErrorsFile(storage, prefix, headers, held === committed ? committed : 0);
    await file.dropUncommitted(objects);
    return file;
  }

  /** Removes every part at or past the committed length (of `objects`, or of a new listing). */
  private async dropUncommitted(objects?: StoredObject[]): Promise<void> {
    for (const o of objects ?? (await this.storage.objects.list(this.prefix))) {
      const m = PART.exec(o.key);
      if (!m || Number(m[1]) >= this.committed) await this.storage.objects.delete(o.key);
    }
  }

  /**
   * Writes a batch's lines as the part at the current end (the header line first, in the file's
   * first part); returns the file's length with them (the batch's checkpoint). The place is taken
   * when called, so batches take their places in the order they call, even two at once.
   */
  async append(lines: string[]): Promise<number> {
    const at = this.committed + this.pending;
    if (!lines.length) return at;
    const text = (at === 0 ? csvLine([...this.headers, 'row', 'error']) : '') + lines.join('');
    const buf = Buffer.from(text);
    this.pending += buf.length;
    const key = `${this.prefix}${String(at).padStart(12, '0')}.csv`;
    await this.storage.objects.write(key, Readable.from([buf]));
    return at + buf.length;
  }

  /** A batch committed with this length (batches commit in file order). */
  commit(length: number): void {
    this.pending -= length - this.committed;
    this.committed = length;
  }

  /** Drops what no committed batch holds (called when no other batch is in flight). */
  async rollback(): Promise<void> {
    this.pending = 0;
    await this.dropUncommitted();
  }

  /** Writes the first `bytes` of the parts as one object at `key` (streamed). */
  static async compact(
    storage: ImportStorage,
    prefix: string,
    bytes: number,
    key: string,
  ): Promise<void> {
    const list = await parts(storage, prefix);
    await storage.objects.write(key, Readable.from(partsBytes(storage, list, bytes)));
  }

  /**
   * The first `bytes` of an errors file: one object, or (`path` ending in `/`) the parts of a
   * run. 404 when it is gone.
   */
  static async read(storage: ImportStorage, path: string, bytes: number): Promise<Readable> {
    if (!path.endsWith('/')) {
      try {
        return await storage.objects.read(path, { end: bytes });
      } catch (err) {
        if (err instanceof ObjectNotFound) throw new NotFoundError('Errors file');
        throw err;
      }
    }
    const list = await parts(storage, path);
    if (!list.length) throw new NotFoundError('Errors file');
    return Readable.from(partsBytes(storage, list, bytes));
  }
}
