// The start parameter of a Telegram record's deep link (§17, `t.me/<bot>?start=<token>`): a signed
// reference to the record, so that the bot's update naming it can be trusted to link that chat to
// that record and no other. Telegram allows 64 characters of A-Z, a-z, 0-9, `_` and `-`: the
// record's id (16 bytes) and a 16-byte MAC in base64url make 43.
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

const ID_BYTES = 16;
const MAC_BYTES = 16;
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export class TelegramLinkTokens {
  private readonly keys: Buffer[];

  /** The first key signs; every key verifies, so links survive an encryption-key rotation. */
  constructor(encryptionKeys: Buffer[]) {
    this.keys = encryptionKeys.map((k) =>
      Buffer.from(hkdfSync('sha256', k, Buffer.alloc(0), 'telegram-link-v1', 32)),
    );
  }

  /** The token of a record (by its uuid) for the bot of one provider account. */
  sign(recordId: string, providerId: string): string {
    const id = Buffer.from(recordId.replace(/-/g, ''), 'hex');
    return Buffer.concat([id, this.mac(this.keys[0], id, providerId)]).toString('base64url');
  }

  /** The record id a genuine token for this provider account names, or null. */
  verify(token: string, providerId: string): string | null {
    if (typeof token !== 'string' || !TOKEN.test(token)) return null;
    const bytes = Buffer.from(token, 'base64url');
    const id = bytes.subarray(0, ID_BYTES);
    const mac = bytes.subarray(ID_BYTES);
    if (!this.keys.some((k) => timingSafeEqual(this.mac(k, id, providerId), mac))) return null;
    const hex = id.toString('hex');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }

  private mac(key: Buffer, id: Buffer, providerId: string): Buffer {
    return createHmac('sha256', key)
      .update(id)
      .update(providerId.toLowerCase())
      .digest()
      .subarray(0, MAC_BYTES);
  }
}
