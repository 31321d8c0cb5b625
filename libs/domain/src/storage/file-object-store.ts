// The object store on a folder of this machine (file://): plain files, 0600 in 0700 folders (§16).
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { chmod, mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { checkKey, ObjectNotFound, ObjectStore, StoredObject } from './object-store';

/** Mode of every stored file (owner read and write only). */
export const STORED_FILE_MODE = 0o600;
/** Mode of the folders holding them. */
export const STORED_DIR_MODE = 0o700;

const missing = (err: unknown) => (err as NodeJS.ErrnoException)?.code === 'ENOENT';

export class FileObjectStore extends ObjectStore {
  constructor(private readonly root: string) {
    super();
  }

  /** The file of a key; refuses anything that would resolve outside the root. */
  path(key: string, folder = false): string {
    const abs = resolve(this.root, checkKey(key, folder));
    if (!abs.startsWith(this.root + sep)) throw new Error('storage key outside the storage root');
    return abs;
  }

  /**
   * Creates the folders down to the key's and makes each 0700 (also one created earlier with the
   * process's default mode).
   */
  private async ensureDir(file: string): Promise<void> {
    const dir = dirname(file);
    await mkdir(dir, { recursive: true, mode: STORED_DIR_MODE });
    const steps = relative(this.root, dir).split(sep);
    let at = this.root;
    await chmod(at, STORED_DIR_MODE);
    for (const s of steps) {
      at = join(at, s);
      await chmod(at, STORED_DIR_MODE);
    }
  }

  async write(key: string, body: Readable): Promise<void> {
    const file = this.path(key);
    await this.ensureDir(file);
    // Written beside its place and renamed: a reader sees the whole file or none.
    const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
    const out = createWriteStream(temp, { flags: 'wx', mode: STORED_FILE_MODE });
    try {
      await pipeline(body, out);
      await rename(temp, file);
    } catch (err) {
      await rm(temp, { force: true });
      throw err;
    }
  }

  async read(key: string, range: { start?: number; end?: number } = {}): Promise<Readable> {
    const file = this.path(key);
    const size = await this.size(key);
    if (size === null) throw new ObjectNotFound(key);
    const start = range.start ?? 0;
    const end = Math.min(range.end ?? size, size);
    if (end <= start) return Readable.from([]);
    return createReadStream(file, { start, end: end - 1, highWaterMark: 256 * 1024 });
  }

  async size(key: string): Promise<number | null> {
    try {
      const info = await stat(this.path(key));
      return info.isFile() ? info.size : null;
    } catch (err) {
      if (missing(err)) return null;
      throw err;
    }
  }

  async move(from: string, to: string): Promise<void> {
    const target = this.path(to);
    await this.ensureDir(target);
    try {
      await rename(this.path(from), target);
    } catch (err) {
      if (missing(err)) throw new ObjectNotFound(from);
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.path(key), { force: true });
  }

  async deletePrefix(prefix: string): Promise<void> {
    await rm(this.path(prefix, true), { recursive: true, force: true });
  }

  async list(prefix: string): Promise<StoredObject[]> {
    const found: StoredObject[] = [];
    const walk = async (dir: string, keyPrefix: string): Promise<void> => {
      let entries;
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch (err) {
        if (missing(err)) return;
        throw err;
      }
      for (const e of entries) {
        const path = join(dir, e.name);
        if (e.isDirectory()) await walk(path, `${keyPrefix}${e.name}/`);
        else if (e.isFile()) {
          const info = await stat(path).catch(() => null);
          if (info)
            found.push({ key: keyPrefix + e.name, size: info.size, lastModified: info.mtime });
        }
      }
    };
    await walk(this.path(prefix, true), prefix);
    return found.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }
}
