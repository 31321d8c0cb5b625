// The errors file of an import run (§7): invalid rows' cells plus `row` and `error`, mode 0600.
import { FileHandle, open } from 'node:fs/promises';
import { csvLine } from './csv-file';
import { IMPORT_FILE_MODE } from './import-storage';

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

/** The errors file of one run: appended before each batch commits, cut back to the commit. */
export class ErrorsFile {
  private constructor(
    private readonly fh: FileHandle,
    /** Length as of the last committed batch. */
    public committed: number,
  ) {}

  static async open(path: string, committed: number, headers: string[]): Promise<ErrorsFile> {
    let fh: FileHandle;
    try {
      fh = await open(path, committed > 0 ? 'r+' : 'w+', IMPORT_FILE_MODE);
    } catch {
      // Lost with its folder: the rows it held are counted, the file starts over.
      fh = await open(path, 'w+', IMPORT_FILE_MODE);
      committed = 0;
    }
    // A file an earlier version created keeps its mode on reopening.
    await fh.chmod(IMPORT_FILE_MODE);
    const file = new ErrorsFile(fh, committed);
    await fh.truncate(committed);
    if (committed === 0) {
      const header = Buffer.from(csvLine([...headers, 'row', 'error']));
      await fh.write(header, 0, header.length, 0);
      // The header is part of the file's first committed length.
      file.pending = header.length;
    }
    return file;
  }

  /** Bytes written after `committed` (by the batches in flight, in file order). */
  pending = 0;

  /**
   * Appends a batch's lines; returns the file's length with them (the batch's checkpoint). The
   * place is taken when called, so batches append in the order they call, even two at once.
   */
  async append(lines: string[]): Promise<number> {
    const at = this.committed + this.pending;
    if (!lines.length) return at;
    const buf = Buffer.from(lines.join(''));
    this.pending += buf.length;
    await this.fh.write(buf, 0, buf.length, at);
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
    await this.fh.truncate(this.committed);
  }

  close(): Promise<void> {
    return this.fh.close();
  }
}
