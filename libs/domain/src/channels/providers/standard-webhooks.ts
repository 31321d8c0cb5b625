// Standard Webhooks signatures (standardwebhooks.com, the specification's "Signature scheme"): the
// `webhook-id`, `webhook-timestamp` and `webhook-signature` headers, the signature `v1,<base64
// HMAC-SHA256 of "<id>.<timestamp>.<body>">` keyed with the base64-decoded part of a `whsec_`
// secret. The generic `http` provider signs what it posts with it and checks the callbacks it gets.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const WEBHOOK_ID_HEADER = 'webhook-id';
export const WEBHOOK_TIMESTAMP_HEADER = 'webhook-timestamp';
export const WEBHOOK_SIGNATURE_HEADER = 'webhook-signature';
/** How far a callback's timestamp may be from the current time, either way (the specification's advice). */
export const DEFAULT_TOLERANCE_SECONDS = 300;

const SECRET_PREFIX = 'whsec_';

/** The key of a `whsec_` secret: its base64 part decoded (the prefix is optional, as in the libraries). */
export function standardWebhookKey(secret: string): Buffer {
  const b64 = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  return Buffer.from(b64, 'base64');
}

/** `v1,<base64 signature>` of one message. */
export function standardWebhookSignature(
  secret: string,
  id: string,
  timestamp: number,
  body: string | Buffer,
): string {
  const mac = createHmac('sha256', standardWebhookKey(secret))
    .update(`${id}.${timestamp}.`, 'utf8')
    .update(body)
    .digest('base64');
  return `v1,${mac}`;
}

/** A fresh message id, `msg_` and random characters. */
export function standardWebhookId(): string {
  return `msg_${randomBytes(16).toString('hex')}`;
}

/** The three headers of a signed request (lower-case names). */
export function standardWebhookHeaders(
  secret: string,
  body: string | Buffer,
  opts: { id?: string; timestamp?: number } = {},
): Record<string, string> {
  const id = opts.id ?? standardWebhookId();
  const timestamp = opts.timestamp ?? Math.floor(Date.now() / 1000);
  return {
    [WEBHOOK_ID_HEADER]: id,
    [WEBHOOK_TIMESTAMP_HEADER]: String(timestamp),
    [WEBHOOK_SIGNATURE_HEADER]: standardWebhookSignature(secret, id, timestamp, body),
  };
}

/**
 * Whether the headers carry a valid signature of `body` under `secret`: the timestamp within
 * `toleranceSeconds` of the current time, and one of the space-separated `v1,` signatures matching (a sender
 * rotating its secret sends several).
 */
export function verifyStandardWebhook(
  secret: string,
  headers: Record<string, string | undefined>,
  body: string | Buffer,
  opts: { toleranceSeconds?: number; nowSeconds?: number } = {},
): boolean {
  const id = headers[WEBHOOK_ID_HEADER];
  const ts = headers[WEBHOOK_TIMESTAMP_HEADER];
  const given = headers[WEBHOOK_SIGNATURE_HEADER];
  if (!id || !ts || !given || !/^\d{1,12}$/.test(ts)) return false;
  const timestamp = Number(ts);
  const now = opts.nowSeconds ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - timestamp) > (opts.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS))
    return false;
  const expected = Buffer.from(standardWebhookSignature(secret, id, timestamp, body).slice(3));
  return given.split(' ').some((candidate) => {
    if (!candidate.startsWith('v1,')) return false;
    const got = Buffer.from(candidate.slice(3));
    return got.length === expected.length && timingSafeEqual(got, expected);
  });
}
