// Password storage (§16): scrypt whose parameters travel in the stored string, so older hashes
// keep verifying and can be recognised for an upgrade. Hashing runs in libuv's threadpool.
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { ServiceUnavailableError, ValidationFailedError } from '../errors/domain-errors';

export interface ScryptParams {
  /** log2 of the cost N. */
  ln: number;
  r: number;
  p: number;
}

/** N = 2^17, r = 8, p = 1: about 128 MiB and a few hundred ms of one core per hash. */
export const PASSWORD_PARAMS: ScryptParams = { ln: 17, r: 8, p: 1 };
/** What new hashes use: PASSWORD_PARAMS, unless a test suite lowered it (setPasswordParamsForTests). */
let current: ScryptParams = PASSWORD_PARAMS;
/** What rows written before parameters were stored used: Node's default scrypt. */
const LEGACY_PARAMS: ScryptParams = { ln: 14, r: 8, p: 1 };

export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 1024;

const SALT_BYTES = 16;
const KEY_BYTES = 64;
/** Hashes computed at once per process: each holds 128 MiB and a threadpool thread. */
const MAX_CONCURRENT = 2;
/** Hashes allowed to wait for a slot; beyond that a login is answered 503 at once. */
const MAX_WAITING = 200;

/**
 * OpenSSL needs 128·r·(N + 2) + 128·r·p bytes, a little over 128·N·r, and Node's default
 * `maxmem` (32 MiB) is below even that: it is passed explicitly, sized to the parameters.
 */
function maxmem({ ln, r, p }: ScryptParams): number {
  return 128 * r * (2 ** ln + 2) + 128 * r * p + 1024 * 1024;
}

let running = 0;
const waiting: (() => void)[] = [];

async function withSlot<T>(work: () => Promise<T>): Promise<T> {
  if (running >= MAX_CONCURRENT) {
    if (waiting.length >= MAX_WAITING) throw new ServiceUnavailableError();
    await new Promise<void>((resolve) => waiting.push(resolve));
  } else {
    running++;
  }
  try {
    return await work();
  } finally {
    // The slot passes straight to the next waiter, or is released.
    const next = waiting.shift();
    if (next) next();
    else running--;
  }
}

/** Async `crypto.scrypt` (the threadpool), looked up per call so tests can observe it. */
function derive(password: string, salt: Buffer, length: number, params: ScryptParams) {
  return withSlot(
    () =>
      new Promise<Buffer>((resolve, reject) =>
        scrypt(
          password,
          salt,
          length,
          { N: 2 ** params.ln, r: params.r, p: params.p, maxmem: maxmem(params) },
          (err, key) => (err ? reject(err) : resolve(key)),
        ),
      ),
  );
}

function format(params: ScryptParams, salt: Buffer, key: Buffer): string {
  return `scrypt$ln=${params.ln},r=${params.r},p=${params.p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

interface ParsedHash {
  params: ScryptParams;
  salt: Buffer;
  key: Buffer;
}

/** `scrypt$ln=17,r=8,p=1$salt$key`, or the older `scrypt$salt$key`; null when unrecognised. */
function parse(stored: string): ParsedHash | null {
  const parts = stored.split('$');
  let params: ScryptParams;
  let salt: string;
  let key: string;
  if (parts[0] !== 'scrypt') return null;
  if (parts.length === 3) {
    [, salt, key] = parts;
    params = LEGACY_PARAMS;
  } else if (parts.length === 4) {
    const m = /^ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})$/.exec(parts[1]);
    if (!m) return null;
    params = { ln: Number(m[1]), r: Number(m[2]), p: Number(m[3]) };
    [, , salt, key] = parts;
  } else {
    return null;
  }
  // Bounds keep a corrupt row from asking for gigabytes.
  if (params.ln < 10 || params.ln > 20 || params.r < 1 || params.r > 16) return null;
  if (params.p < 1 || params.p > 4) return null;
  const parsed = { params, salt: Buffer.from(salt, 'base64'), key: Buffer.from(key, 'base64') };
  return parsed.salt.length >= 8 && parsed.key.length >= 16 ? parsed : null;
}

/** Characters as a person counts them (code points), not UTF-16 units. */
function characters(password: string): number {
  let n = 0;
  for (const _ of password) n++;
  return n;
}

/** The rule every place that sets a password applies (never login: it must not reveal it). */
export function assertAcceptablePassword(password: string): void {
  const length = characters(password);
  if (length < PASSWORD_MIN_LENGTH) {
    throw ValidationFailedError.field(
      'password',
      'minLength',
      `password must be at least ${PASSWORD_MIN_LENGTH} characters`,
    );
  }
  if (length > PASSWORD_MAX_LENGTH) {
    throw ValidationFailedError.field(
      'password',
      'maxLength',
      `password must be at most ${PASSWORD_MAX_LENGTH} characters`,
    );
  }
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  return format(current, salt, await derive(password, salt, KEY_BYTES, current));
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parse(stored);
  if (!parsed) return false;
  const derived = await derive(password, parsed.salt, parsed.key.length, parsed.params);
  return timingSafeEqual(derived, parsed.key);
}

/** True when `stored` was written with other parameters than today's (or is unrecognised). */
export function needsRehash(stored: string): boolean {
  const parsed = parse(stored);
  return (
    !parsed ||
    parsed.params.ln !== current.ln ||
    parsed.params.r !== current.r ||
    parsed.params.p !== current.p ||
    parsed.key.length !== KEY_BYTES
  );
}

/**
 * Compared against when the email is unknown, so an unknown email costs the same scrypt as a
 * known one and the timing does not tell them apart.
 */
export let DUMMY_PASSWORD_HASH = format(current, Buffer.alloc(SALT_BYTES), Buffer.alloc(KEY_BYTES));

/**
 * For test suites only: new hashes, and the dummy one, use `params` from now on. The e2e tier
 * lowers the cost (docs/testing.md) so its logins do not take minutes; a hash carries its own
 * parameters, so none of them is ever taken for a production one. The platform never calls it.
 */
export function setPasswordParamsForTests(params: ScryptParams): void {
  current = params;
  DUMMY_PASSWORD_HASH = format(current, Buffer.alloc(SALT_BYTES), Buffer.alloc(KEY_BYTES));
}
