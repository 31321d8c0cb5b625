// Field encryption at rest (§5): AES-256-GCM per value with a random 96-bit nonce, stored as
// `v1:<keyId>:<base64 nonce|ciphertext|tag>`, plus HMAC-SHA256 blind indexes for lookup.
import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  createSecretKey,
  hkdfSync,
  KeyObject,
} from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { ValueTransformer } from 'typeorm';
import { pooledRandomBytes } from './random-pool';

interface KeyEntry {
  id: string;
  /** The AES key as a KeyObject, made once: a Buffer key is turned into one on every call. */
  key: KeyObject;
  blindKey: Buffer;
}

/** A fresh random 96-bit AES-GCM nonce, never handed out twice (see random-pool). */
function nextNonce(): Buffer {
  return pooledRandomBytes(12);
}

function entry(key: Buffer): KeyEntry {
  return {
    id: createHash('sha256').update(key).digest('hex').slice(0, 8),
    key: createSecretKey(key),
    blindKey: Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), 'blind-index-v1', 32)),
  };
}

export class FieldCipher {
  private readonly current: KeyEntry;
  private readonly byId = new Map<string, KeyEntry>();

  constructor(currentKey: Buffer, oldKeys: Buffer[] = []) {
    this.current = entry(currentKey);
    for (const k of [currentKey, ...oldKeys]) {
      const e = entry(k);
      if (!this.byId.has(e.id)) this.byId.set(e.id, e);
    }
  }

  get currentKeyId(): string {
    return this.current.id;
  }

  encrypt(plain: string): string {
    const nonce = nextNonce();
    const cipher = createCipheriv('aes-256-gcm', this.current.key, nonce);
    const ct = cipher.update(plain, 'utf8');
    const last = cipher.final();
    return `v1:${this.current.id}:${Buffer.concat([nonce, ct, last, cipher.getAuthTag()]).toString('base64')}`;
  }

  decrypt(stored: string): string {
    const { key, sealed } = this.opened(stored);
    return this.decipher(key, Buffer.from(sealed, 'base64')).toString('utf8');
  }

  /**
   * `decrypt` for a value of megabytes (a message's content): its three steps (base64, AES, UTF-8)
   * each take milliseconds there, so each runs in an event-loop turn of its own, with I/O between
   * and before the first. Called straight after I/O (a statement's rows), one setImmediate would
   * still run before the next poll for I/O: the first step waits for two.
   */
  async decryptInTurns(stored: string): Promise<string> {
    const { key, sealed } = this.opened(stored);
    await nextTurn();
    await nextTurn();
    const buf = Buffer.from(sealed, 'base64');
    await nextTurn();
    const plain = this.decipher(key, buf);
    await nextTurn();
    return plain.toString('utf8');
  }

  /** The key and base64 payload of `v1:<keyId>:<payload>`, read with indexOf (no split array). */
  private opened(stored: string): { key: KeyObject; sealed: string } {
    const second = stored.indexOf(':', 3);
    if (!stored.startsWith('v1:') || second < 4 || stored.indexOf(':', second + 1) !== -1)
      throw new Error('Unrecognised encrypted value');
    const keyId = stored.slice(3, second);
    const k = this.byId.get(keyId);
    if (!k) throw new Error(`No decryption key with id ${keyId} (set ENCRYPTION_KEYS_OLD)`);
    return { key: k.key, sealed: stored.slice(second + 1) };
  }

  /**
   * The plaintext bytes of nonce | ciphertext | tag. Bytes out (an output encoding makes update
   * and final go through a StringDecoder created per value); final() verifies the tag before
   * anything is returned.
   */
  private decipher(key: KeyObject, buf: Buffer): Buffer {
    if (buf.length < 28) throw new Error('Unrecognised encrypted value');
    const decipher = createDecipheriv('aes-256-gcm', key, buf.subarray(0, 12));
    decipher.setAuthTag(buf.subarray(buf.length - 16));
    const plain = decipher.update(buf.subarray(12, buf.length - 16));
    decipher.final();
    return plain;
  }

  /**
   * `encrypt` for bytes stored in a bytea column (no base64 on either side): the same AES-256-GCM
   * with a random nonce, as `v1:<keyId>:` (ASCII) followed by nonce | ciphertext | tag.
   */
  encryptBytes(plain: Buffer): Buffer {
    const nonce = nextNonce();
    const cipher = createCipheriv('aes-256-gcm', this.current.key, nonce);
    const ct = cipher.update(plain);
    cipher.final();
    const head = Buffer.from(`v1:${this.current.id}:`, 'latin1');
    return Buffer.concat([head, nonce, ct, cipher.getAuthTag()]);
  }

  decryptBytes(stored: Buffer): Buffer {
    const second = stored.indexOf(0x3a, 3);
    if (stored.toString('latin1', 0, 3) !== 'v1:' || second < 4)
      throw new Error('Unrecognised encrypted value');
    const keyId = stored.toString('latin1', 3, second);
    const k = this.byId.get(keyId);
    if (!k) throw new Error(`No decryption key with id ${keyId} (set ENCRYPTION_KEYS_OLD)`);
    return this.decipher(k.key, stored.subarray(second + 1));
  }

  /** True when the value was written under an older key and should be re-encrypted. */
  isStale(stored: string): boolean {
    return stored.split(':')[1] !== this.current.id;
  }

  /** Blind index of an already normalised value under the current key (what writes store). */
  blindIndex(normalised: string): string {
    return createHmac('sha256', this.current.blindKey).update(normalised, 'utf8').digest('hex');
  }

  /** Blind indexes under every known key: lookups match rows written before a key rotation. */
  blindIndexCandidates(normalised: string): string[] {
    return [...this.byId.values()].map((k) =>
      createHmac('sha256', k.blindKey).update(normalised, 'utf8').digest('hex'),
    );
  }
}

let active: FieldCipher | undefined;

/** Installs the process-wide cipher; called once at boot by the database module. */
export function configureFieldEncryption(cipher: FieldCipher): void {
  active = cipher;
}

export function fieldCipher(): FieldCipher {
  if (!active) throw new Error('Field encryption is not configured');
  return active;
}

/** The one TypeORM transformer for encrypted columns. */
export const encryptedColumn: ValueTransformer = {
  to: (value: string | null | undefined) =>
    value === null || value === undefined ? value : fieldCipher().encrypt(value),
  from: (value: string | null) => (value === null ? null : fieldCipher().decrypt(value)),
};

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}
