// X-Webhook-Signature (§10): `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'X-Webhook-Signature';

/** A new signing secret: 64 hex characters, no prefix (spec). */
export function generateWebhookSecret(): string {
  return randomBytes(32).toString('hex');
}

/** The hex HMAC-SHA256 of "<timestamp>.<raw body>", keyed with the secret's UTF-8 bytes. */
export function computeSignature(secret: string, timestamp: number, rawBody: string): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(`${timestamp}.${rawBody}`, 'utf8')
    .digest('hex');
}

export function signatureHeader(secret: string, timestamp: number, rawBody: string): string {
  return `t=${timestamp},v1=${computeSignature(secret, timestamp, rawBody)}`;
}

/**
 * What a receiver does: recompute the HMAC over the raw body and compare in constant time.
 * `toleranceSeconds` bounds replays; 0 disables the age check.
 */
export function verifySignature(
  secret: string,
  header: string | undefined,
  rawBody: string,
  opts: { toleranceSeconds?: number; nowSeconds?: number } = {},
): boolean {
  if (!header) return false;
  const parts = new Map<string, string[]>();
  for (const piece of header.split(',')) {
    const eq = piece.indexOf('=');
    if (eq <= 0) continue;
    const k = piece.slice(0, eq).trim();
    parts.set(k, [...(parts.get(k) ?? []), piece.slice(eq + 1).trim()]);
  }
  const t = Number(parts.get('t')?.[0]);
  if (!Number.isInteger(t)) return false;
  const tolerance = opts.toleranceSeconds ?? 300;
  const now = opts.nowSeconds ?? Math.floor(Date.now() / 1000);
  if (tolerance > 0 && Math.abs(now - t) > tolerance) return false;
  const expected = Buffer.from(computeSignature(secret, t, rawBody), 'hex');
  return (parts.get('v1') ?? []).some((candidate) => {
    const got = Buffer.from(candidate, 'hex');
    return got.length === expected.length && timingSafeEqual(got, expected);
  });
}
