// The unsubscribe token (§14): a signed, compact reference to one message, used in the
// List-Unsubscribe URL (`/u/{token}`), its mailto address (`unsubscribe+{token}@`) and the visible
// link. It names the message by the ULID of its job id, which the campaign's work list keeps after
// the message log is purged, so a campaign's link outlives the log's retention.
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

/** A job id the send path issues: `job_` and a ULID (Crockford base32, 26 characters). */
const JOB_ID = /^job_([0-7][0-9A-HJKMNP-TV-Z]{25})$/;
const MAC_BYTES = 10;
/**
 * Lower-case ULID, then the MAC in hex: 46 characters of one case, so `unsubscribe+{token}` stays
 * within the 64 octets of an SMTP local part and survives a mail system that changes its case.
 */
const TOKEN = /^([0-7][0-9a-hjkmnp-tv-z]{25})([0-9a-f]{20})$/;

export class UnsubscribeTokens {
  private readonly keys: Buffer[];

  /** The first key signs; every key verifies, so links survive an encryption-key rotation. */
  constructor(encryptionKeys: Buffer[]) {
    this.keys = encryptionKeys.map((k) =>
      Buffer.from(hkdfSync('sha256', k, Buffer.alloc(0), 'unsubscribe-token-v1', 32)),
    );
  }

  /** The token of a message, by its job id; null for a job id the send path did not issue. */
  sign(jobId: string): string | null {
    const m = JOB_ID.exec(jobId);
    if (!m) return null;
    return m[1].toLowerCase() + this.mac(this.keys[0], jobId).toString('hex');
  }

  /** The job id a genuine token names, or null. Case-insensitive, as mail addresses may be. */
  verify(token: string): string | null {
    if (typeof token !== 'string' || token.length !== 46) return null;
    const m = TOKEN.exec(token.toLowerCase());
    if (!m) return null;
    const jobId = `job_${m[1].toUpperCase()}`;
    const mac = Buffer.from(m[2], 'hex');
    return this.keys.some((k) => timingSafeEqual(this.mac(k, jobId), mac)) ? jobId : null;
  }

  private mac(key: Buffer, jobId: string): Buffer {
    return createHmac('sha256', key).update(jobId).digest().subarray(0, MAC_BYTES);
  }
}
