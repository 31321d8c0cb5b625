// The one interface every stored file goes through (§18): a folder or an S3 bucket behind it.
import type { Readable } from 'node:stream';

/** One stored object as a listing shows it. */
export interface StoredObject {
  key: string;
  /** Bytes of its content (as read back, whatever the stored form). */
  size: number;
  lastModified: Date;
}

/** A read or a size of a key that holds nothing. */
export class ObjectNotFound extends Error {
  constructor(readonly key: string) {
    super('stored object not found');
  }
}

/**
 * Keys are relative, `/`-separated (`imports/<org>/<id>/source.csv`); a prefix that names a
 * folder ends in `/`. Writes are whole: a reader never sees a half-written object.
 */
export abstract class ObjectStore {
  /** Streams `body` into `key` (replacing it); rejects with the body's error if it fails. */
  abstract write(key: string, body: Readable): Promise<void>;
  /** The bytes of `key` from `start` (inclusive) to `end` (exclusive; default: its end). */
  abstract read(key: string, range?: { start?: number; end?: number }): Promise<Readable>;
  /** The bytes `key` holds, null when it does not exist. */
  abstract size(key: string): Promise<number | null>;
  /** Renames `from` to `to` (replacing `to`). */
  abstract move(from: string, to: string): Promise<void>;
  /** Removes `key`; nothing happens when it does not exist. */
  abstract delete(key: string): Promise<void>;
  /** Removes every key under `prefix` (a folder: ends in `/`). */
  abstract deletePrefix(prefix: string): Promise<void>;
  /** Every key under `prefix`, in key order. */
  abstract list(prefix: string): Promise<StoredObject[]>;
}

/** Refuses a key that is absolute, empty, or climbs out with `..` (whatever the store). */
export function checkKey(key: string, folder = false): string {
  const parts = key.split('/');
  if (folder) {
    if (parts.pop() !== '') throw new Error('a storage prefix must end in /');
  }
  if (
    !parts.length ||
    parts.some((p) => p === '' || p === '.' || p === '..' || p.includes('\\') || p.includes('\0'))
  )
    throw new Error('storage key outside the storage root');
  return key;
}
