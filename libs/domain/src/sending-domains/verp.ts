// The envelope sender of §13 (VERP): `bounces+<token>@<return host>`, the token a signed, compact
// reference to the message and the recipient, so that a bounce names what bounced. Hex, so that
// a server that changes the case of the local part does not break it; 52 characters in all.
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

export interface VerpClaims {
  /** messages.id of the message. */
  messageId: string;
  /** Index of the recipient in the message's recipient list. */
  recipientIndex: number;
}

const MAC_BYTES = 8;
const PAYLOAD_BYTES = 16 + 2;
const TOKEN = /^[0-9a-f]{52}$/;
const ADDRESS = /^bounces\+([0-9a-fA-F]{52})@/;

export class VerpTokens {
  private readonly keys: Buffer[];

  /** The first key signs; every key verifies, so bounces match across an encryption-key rotation. */
  constructor(encryptionKeys: Buffer[]) {
    this.keys = encryptionKeys.map((k) =>
      Buffer.from(hkdfSync('sha256', k, Buffer.alloc(0), 'verp-token-v1', 32)),
    );
  }

  sign(claims: VerpClaims): string {
    const payload = Buffer.alloc(PAYLOAD_BYTES);
    Buffer.from(claims.messageId.replace(/-/g, ''), 'hex').copy(payload, 0);
    payload.writeUInt16BE(claims.recipientIndex, 16);
    return Buffer.concat([payload, this.mac(this.keys[0], payload)]).toString('hex');
  }

  /** `bounces+<token>@<returnHost>`. */
  address(claims: VerpClaims, returnHost: string): string {
    return `bounces+${this.sign(claims)}@${returnHost}`;
  }

  /** The claims of a genuine token, or null. */
  verify(token: string): VerpClaims | null {
    const t = token.toLowerCase();
    if (!TOKEN.test(t)) return null;
    const raw = Buffer.from(t, 'hex');
    const payload = raw.subarray(0, PAYLOAD_BYTES);
    const mac = raw.subarray(PAYLOAD_BYTES);
    if (!this.keys.some((k) => timingSafeEqual(this.mac(k, payload), mac))) return null;
    const h = payload.subarray(0, 16).toString('hex');
    return {
      messageId: `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`,
      recipientIndex: payload.readUInt16BE(16),
    };
  }

  /** The claims of a VERP address (`bounces+<token>@…`), or null. */
  verifyAddress(address: string): VerpClaims | null {
    const m = ADDRESS.exec(address);
    return m ? this.verify(m[1]) : null;
  }

  private mac(key: Buffer, payload: Buffer): Buffer {
    return createHmac('sha256', key).update(payload).digest().subarray(0, MAC_BYTES);
  }
}
