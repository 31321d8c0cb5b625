// The request of one webhook attempt: the stored body with the built-in headers of §10 (signature
// included) and the endpoint's own headers.
import type { ClaimedDelivery } from './webhook-queue.types';
import { signatureHeader } from './webhook-signature';

/** Built-in headers, then the endpoint's own, which replace a built-in of the same name. */
export function requestHeaders(
  claimed: ClaimedDelivery,
  body: string,
  attemptAt: Date,
): Record<string, string> {
  const t = Math.floor(attemptAt.getTime() / 1000);
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    'X-Webhook-Signature': signatureHeader(claimed.endpoint.secret, t, body),
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
