// Signed tracking tokens (§8): who opened or clicked what, and for a click the only URL the
// redirect may go to. HMAC-SHA256 under a key derived from the encryption key; a token that does
// not verify is unknown (404), never a redirect.
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { asOrgId, type OrgId } from '../../common/org-id';

export type TrackingKind = 'open' | 'click';

export interface TrackingClaims {
  kind: TrackingKind;
  organizationId: OrgId;
  /** messages.id of the message. */
  messageId: string;
  /** Index of the recipient in the message's recipient list. */
  recipientIndex: number;
  /** The original link (clicks only). */
  url?: string;
}

const KIND_CODE: Record<TrackingKind, number> = { open: 1, click: 2 };
const MAC_BYTES = 16;
const HEAD_BYTES = 1 + 16 + 16 + 2;
/** Links longer than this stay as they are (a token must fit in any URL). */
export const MAX_TRACKED_URL_LENGTH = 2000;

function uuidBytes(id: string): Buffer {
  return Buffer.from(id.replace(/-/g, ''), 'hex');
}

function uuidString(b: Buffer): string {
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

export class TrackingTokens {
  private readonly keys: Buffer[];

  /** The first key signs; every key verifies, so links survive an encryption-key rotation. */
  constructor(encryptionKeys: Buffer[]) {
    this.keys = encryptionKeys.map((k) =>
      Buffer.from(hkdfSync('sha256', k, Buffer.alloc(0), 'tracking-token-v1', 32)),
    );
  }

  sign(claims: TrackingClaims): string {
    const url = claims.kind === 'click' ? Buffer.from(claims.url ?? '', 'utf8') : Buffer.alloc(0);
    const payload = Buffer.alloc(HEAD_BYTES + url.length);
    payload[0] = KIND_CODE[claims.kind];
    uuidBytes(claims.organizationId).copy(payload, 1);
    uuidBytes(claims.messageId).copy(payload, 17);
    payload.writeUInt16BE(claims.recipientIndex, 33);
    url.copy(payload, HEAD_BYTES);
    return Buffer.concat([payload, this.mac(this.keys[0], payload)]).toString('base64url');
  }

  /** The claims of a genuine token of the expected kind, or null. */
  verify(token: string, kind: TrackingKind): TrackingClaims | null {
    if (!/^[A-Za-z0-9_-]+$/.test(token) || token.length > 4096) return null;
    const raw = Buffer.from(token, 'base64url');
    if (raw.length < HEAD_BYTES + MAC_BYTES) return null;
    const payload = raw.subarray(0, raw.length - MAC_BYTES);
    const mac = raw.subarray(raw.length - MAC_BYTES);
    // Base64url has several spellings of the same bytes; only the canonical one is ours.
    if (raw.toString('base64url') !== token) return null;
    if (!this.keys.some((k) => timingSafeEqual(this.mac(k, payload), mac))) return null;
    if (payload[0] !== KIND_CODE[kind]) return null;
    const claims: TrackingClaims = {
      kind,
      // A token we signed: its organization is the message's.
      organizationId: asOrgId(uuidString(payload.subarray(1, 17))),
      messageId: uuidString(payload.subarray(17, 33)),
      recipientIndex: payload.readUInt16BE(33),
    };
    if (kind === 'click') {
      const url = payload.subarray(HEAD_BYTES).toString('utf8');
      if (!/^https?:\/\//i.test(url)) return null;
      claims.url = url;
    } else if (payload.length !== HEAD_BYTES) {
      return null;
    }
    return claims;
  }

  private mac(key: Buffer, payload: Buffer): Buffer {
    return createHmac('sha256', key).update(payload).digest().subarray(0, MAC_BYTES);
  }
}
