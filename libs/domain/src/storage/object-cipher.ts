// Encryption of stored objects (§16, §18): AES-256-GCM in 64 KiB segments, so that a read from
// any plaintext offset fetches and checks only the segments from the one holding it.
//
// Layout: header = "MPO1" | key id (4 bytes) | random nonce prefix (8 bytes); then each segment's
// ciphertext followed by its 16-byte tag. Segment i's nonce is prefix ‖ uint32be(i) and its
// additional data one byte, 1 on the last segment and 0 before, so a reordered, cut or extended
// object fails its check. The key is derived from ENCRYPTION_KEY with HKDF (label `object-store`);
// objects written under an older key still read while it is in ENCRYPTION_KEYS_OLD.
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import { Transform, TransformCallback } from 'node:stream';

export const SEGMENT_BYTES = 64 * 1024;
const TAG_BYTES = 16;
const MAGIC = Buffer.from('MPO1', 'latin1');
export const HEADER_BYTES = MAGIC.length + 4 + 8;
const SEALED_SEGMENT = SEGMENT_BYTES + TAG_BYTES;
const LAST = Buffer.from([1]);
const NOT_LAST = Buffer.from([0]);

/** An object whose bytes do not pass the check (changed, cut, or not written by this store). */
export class ObjectIntegrityError extends Error {
  constructor() {
    super('stored object failed its integrity check');
  }
}

interface ObjectKey {
  id: Buffer;
  key: Buffer;
}

function derive(master: Buffer): ObjectKey {
  const key = Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), 'object-store', 32));
  return { id: createHash('sha256').update(key).digest().subarray(0, 4), key };
}

function nonce(prefix: Buffer, index: number): Buffer {
  if (index > 0xffffffff) throw new Error('stored object too large for its segment counter');
  const n = Buffer.alloc(12);
  prefix.copy(n, 0, 0, 8);
  n.writeUInt32BE(index, 8);
  return n;
}

/** Byte offset in the stored object where segment `index` starts. */
export function segmentOffset(index: number): number {
  return HEADER_BYTES + index * SEALED_SEGMENT;
}

/** Segments of a stored object of `stored` bytes (an empty plaintext still has one). */
export function segmentCount(stored: number): number {
  if (stored < HEADER_BYTES + TAG_BYTES) throw new ObjectIntegrityError();
  return Math.ceil((stored - HEADER_BYTES) / SEALED_SEGMENT);
}

/** Plaintext bytes of a stored object of `stored` bytes. */
export function plaintextSize(stored: number): number {
  return stored - HEADER_BYTES - segmentCount(stored) * TAG_BYTES;
}

/** Gathers chunks and hands out whole pieces of `size` bytes (the rest kept for later). */
class Pieces {
  private chunks: Buffer[] = [];
  length = 0;

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.length += chunk.length;
  }

  /** Takes the first `size` bytes (all there are, when fewer). */
  take(size: number): Buffer {
    const all = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks);
    const piece = all.subarray(0, size);
    const rest = all.subarray(piece.length);
    this.chunks = rest.length ? [rest] : [];
    this.length = rest.length;
    return piece;
  }
}

export class ObjectCipher {
  private readonly current: ObjectKey;
  private readonly byId = new Map<string, ObjectKey>();

  constructor(currentKey: Buffer, oldKeys: Buffer[] = []) {
    this.current = derive(currentKey);
    for (const k of [currentKey, ...oldKeys]) {
      const d = derive(k);
      if (!this.byId.has(d.id.toString('hex'))) this.byId.set(d.id.toString('hex'), d);
    }
  }

  /** A stream turning plaintext into the stored form (header first). */
  encryptor(): Transform {
    const { key, id } = this.current;
    const prefix = randomBytes(8);
    const pending = new Pieces();
    let index = 0;
    const seal = (plain: Buffer, last: boolean): Buffer => {
      const cipher = createCipheriv('aes-256-gcm', key, nonce(prefix, index++));
      cipher.setAAD(last ? LAST : NOT_LAST);
      const body = cipher.update(plain);
      cipher.final();
      return Buffer.concat([body, cipher.getAuthTag()]);
    };
    return new Transform({
      construct(done) {
        this.push(Buffer.concat([MAGIC, id, prefix]));
        done();
      },
      transform(chunk: Buffer, _enc, done: TransformCallback) {
        pending.push(chunk);
        // A full segment is sealed as not the last only once a byte after it is known.
        while (pending.length > SEGMENT_BYTES) this.push(seal(pending.take(SEGMENT_BYTES), false));
        done();
      },
      flush(done: TransformCallback) {
        this.push(seal(pending.take(SEGMENT_BYTES), true));
        done();
      },
    });
  }

  /**
   * A stream turning stored bytes from segment `first` on back into plaintext. `segments` is the
   * object's segment count (from its stored size); `skip` plaintext bytes of the first segment
   * are dropped and at most `length` are passed on. A segment's plaintext is passed on only once
   * its tag checks.
   */
  decryptor(
    header: Buffer,
    opts: { first: number; segments: number; skip?: number; length?: number },
  ): Transform {
    if (header.length < HEADER_BYTES || !header.subarray(0, MAGIC.length).equals(MAGIC))
      throw new ObjectIntegrityError();
    const k = this.byId.get(header.subarray(4, 8).toString('hex'));
    if (!k) throw new Error('stored object under an unknown key (set ENCRYPTION_KEYS_OLD)');
    const prefix = header.subarray(8, HEADER_BYTES);
    const pending = new Pieces();
    let index = opts.first;
    let skip = opts.skip ?? 0;
    let left = opts.length ?? Infinity;
    const open = (sealed: Buffer): Buffer => {
      if (sealed.length < TAG_BYTES || index >= opts.segments) throw new ObjectIntegrityError();
      const decipher = createDecipheriv('aes-256-gcm', k.key, nonce(prefix, index));
      decipher.setAAD(index === opts.segments - 1 ? LAST : NOT_LAST);
      decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
      const plain = decipher.update(sealed.subarray(0, sealed.length - TAG_BYTES));
      try {
        decipher.final();
      } catch {
        throw new ObjectIntegrityError();
      }
      index++;
      return plain;
    };
    const pass = (t: Transform, plain: Buffer) => {
      let out = plain;
      if (skip) {
        out = out.subarray(Math.min(skip, out.length));
        skip = 0;
      }
      if (out.length > left) out = out.subarray(0, left);
      left -= out.length;
      if (out.length) t.push(out);
    };
    return new Transform({
      transform(chunk: Buffer, _enc, done: TransformCallback) {
        pending.push(chunk);
        try {
          while (pending.length >= SEALED_SEGMENT && left > 0)
            pass(this, open(pending.take(SEALED_SEGMENT)));
          if (left <= 0) pending.take(pending.length);
          done();
        } catch (err) {
          done(err as Error);
        }
      },
      flush(done: TransformCallback) {
        try {
          if (pending.length && left > 0) pass(this, open(pending.take(pending.length)));
          else if (left > 0 && index < opts.segments) throw new ObjectIntegrityError();
          done();
        } catch (err) {
          done(err as Error);
        }
      },
    });
  }
}
