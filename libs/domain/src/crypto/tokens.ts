// Secrets we issue (API keys, access tokens) and how they are stored: only a SHA-256 hash.
// Passwords are stored by ./passwords.
import { createHash, randomBytes, randomInt } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** 40 base62 characters carrying the entropy of 30 random bytes (§3). */
export function base62FromBytes(bytes: Buffer, length: number): string {
  let n = BigInt('0x' + bytes.toString('hex'));
  let out = '';
  for (let i = 0; i < length; i++) {
    out = BASE62[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out;
}

export const API_KEY_PREFIX = 'bk_live_';
export const ACCESS_TOKEN_PREFIX = 'at_';

export function generateApiKey(): string {
  return API_KEY_PREFIX + base62FromBytes(randomBytes(30), 40);
}

export function generateAccessToken(): string {
  return ACCESS_TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

export function isWellFormedApiKey(value: string): boolean {
  return /^bk_live_[0-9A-Za-z]{40}$/.test(value);
}

export function isWellFormedAccessToken(value: string): boolean {
  return /^at_[A-Za-z0-9_-]{43}$/.test(value);
}

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

const CUID_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** 24-character lower-case public id starting with a letter (§5 list cuid). */
export function generateCuid(): string {
  let out = CUID_ALPHABET[randomInt(26)];
  for (let i = 1; i < 24; i++) out += CUID_ALPHABET[randomInt(CUID_ALPHABET.length)];
  return out;
}
