// Bytes of the CSPRNG drawn 4 KB at a time, as node itself pools the randomness of randomUUID: a
// randomBytes call per AES-GCM nonce or per ulid character costs a native call and a buffer
// each. Every slice handed out is fresh: the pool is never written again once drawn, and a new
// one replaces it when it runs out, so no byte is ever given twice.
import { randomBytes } from 'node:crypto';

const POOL_BYTES = 4092;
let pool = Buffer.alloc(0);
let at = 0;

/** `n` (≤ 4092) fresh random bytes, a view into the pool. */
export function pooledRandomBytes(n: number): Buffer {
  if (at + n > pool.length) {
    pool = randomBytes(POOL_BYTES);
    at = 0;
  }
  return pool.subarray(at, (at += n));
}

/** A random number in [0, 1) with 8 bits of randomness (ulid's PRNG interface). */
export function pooledRandomFraction(): number {
  return pooledRandomBytes(1)[0] / 256;
}
