// The request of one webhook attempt: the stored body with the built-in headers of §10 (signature
// included) and the endpoint's own headers.
import type { KeyObject } from 'node:crypto';
import type { ClaimedDelivery } from './webhook-queue.types';
import { signatureHeader, signingKey } from './webhook-signature';

/**
 * Signing keys by secret: the deliveries of one endpoint share its decrypted secret, and a
 * regenerated secret is a new entry.
 */
const signingKeys = new Map<string, KeyObject>();
function signingKeyOf(secret: string): KeyObject {
  let key = signingKeys.get(secret);
  if (!key) {
    if (signingKeys.size >= 1000) signingKeys.clear();
    key = signingKey(secret);
    signingKeys.set(secret, key);
  }
  return key;
}

/** Built-in headers, then the endpoint's own, which replace a built-in of the same name. */
export function requestHeaders(
  claimed: ClaimedDelivery,
  body: string,
  attemptAt: Date,
): Record<string, string> {
  const t = Math.floor(attemptAt.getTime() / 1000);
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    'X-Webhook-Signature': signatureHeader(signingKeyOf(claimed.endpoint.secret), t, body),
    'X-Webhook-Delivery-Id': claimed.id,
    'X-Webhook-Event': claimed.type,
  };
  for (const { key, value } of claimed.endpoint.customHeaders) {
    for (const existing of Object.keys(headers)) {
      if (existing.toLowerCase() === key.toLowerCase()) delete headers[existing];
    }
    headers[key] = value;
  }
  return headers;
}
