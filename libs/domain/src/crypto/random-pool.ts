// Bytes of the CSPRNG drawn 4 KB at a time, as node itself pools the randomness of randomUUID:
// each crypto.randomBytes or getRandomValues call is a system call, which costs microseconds on
// virtual machines, once per AES-GCM nonce and once per ulid character. Every slice handed out is
// fresh: a pool is never written again once drawn, and a new one replaces it when it runs out, so
// no byte is ever given twice. Kept for speed (docs/performance.md).
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
