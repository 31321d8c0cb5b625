import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import {
  HEADER_BYTES,
  ObjectCipher,
  ObjectIntegrityError,
  plaintextSize,
  SEGMENT_BYTES,
  segmentCount,
  segmentOffset,
} from './object-cipher';

const KEY = Buffer.alloc(32, 3);
const cipher = new ObjectCipher(KEY);
const SEG = SEGMENT_BYTES;

const seal = (plain: Buffer, c = cipher) => buffer(Readable.from([plain]).pipe(c.encryptor()));

/** The plaintext from `start` (to `end`) of a stored object, fetching from the segment holding it. */
async function open(stored: Buffer, start = 0, end?: number, c = cipher): Promise<Buffer> {
  const segments = segmentCount(stored.length);
  const first = Math.floor(start / SEG);
  const plain = plaintextSize(stored.length);
  const stop = Math.min(end ?? plain, plain);
  const body = stored.subarray(segmentOffset(first));
  return buffer(
    Readable.from([body]).pipe(
      c.decryptor(stored.subarray(0, HEADER_BYTES), {
        first,
        segments,
        skip: start - first * SEG,
        length: Math.max(0, stop - start),
      }),
    ),
  );
}

describe('ObjectCipher', () => {
  it.each([0, 1, SEG - 1, SEG, SEG + 1, 3_000_000])(
    'round-trips %d bytes, and its stored size tells its plaintext size',
    async (size) => {
      const plain = randomBytes(size);
      const stored = await seal(plain);
      expect(plaintextSize(stored.length)).toBe(size);
      expect((await open(stored)).equals(plain)).toBe(true);
    },
  );

  it('never stores the plaintext, and two writes of it differ', async () => {
    const plain = Buffer.from('email,name\r\nann@example.test,Ann\r\n'.repeat(100));
    const a = await seal(plain);
    const b = await seal(plain);
    expect(a.includes(Buffer.from('ann@example.test'))).toBe(false);
    expect(a.equals(b)).toBe(false);
  });

  it('reads from offsets inside segments and at their edges, fetching only from there', async () => {
    const plain = randomBytes(3 * SEG + 100);
    const stored = await seal(plain);
    for (const start of [1, 500, SEG - 1, SEG, SEG + 1, 2 * SEG, 3 * SEG, 3 * SEG + 99]) {
      expect((await open(stored, start)).equals(plain.subarray(start))).toBe(true);
    }
    expect((await open(stored, SEG - 1, SEG + 1)).equals(plain.subarray(SEG - 1, SEG + 1))).toBe(
      true,
    );
    expect((await open(stored, 3 * SEG + 100)).length).toBe(0);
  });

  it('fails on a flipped byte, in the header, a segment or a tag', async () => {
    const stored = await seal(randomBytes(2 * SEG + 10));
    for (const at of [HEADER_BYTES - 1, HEADER_BYTES + 5, segmentOffset(1) + SEG + 3]) {
      const bad = Buffer.from(stored);
      bad[at] ^= 1;
      await expect(open(bad)).rejects.toBeInstanceOf(ObjectIntegrityError);
    }
  });

  it('fails on an object cut inside a segment or at a segment edge', async () => {
    const stored = await seal(randomBytes(2 * SEG + 10));
    await expect(open(stored.subarray(0, stored.length - 1))).rejects.toBeInstanceOf(
      ObjectIntegrityError,
    );
    // Two whole segments left: the second was not written as the last one.
    await expect(open(stored.subarray(0, segmentOffset(2)))).rejects.toBeInstanceOf(
      ObjectIntegrityError,
    );
    await expect(open(stored.subarray(0, segmentOffset(2)), SEG + 5)).rejects.toBeInstanceOf(
      ObjectIntegrityError,
    );
    expect(() => segmentCount(HEADER_BYTES)).toThrow(ObjectIntegrityError);
  });

  it('reads objects written under an older key while that key is listed', async () => {
    const old = Buffer.alloc(32, 9);
    const plain = randomBytes(1000);
    const stored = await seal(plain, new ObjectCipher(old));
    expect((await open(stored, 0, undefined, new ObjectCipher(KEY, [old]))).equals(plain)).toBe(
      true,
    );
    await expect(open(stored)).rejects.toThrow(/unknown key/);
  });
});
