// The outcome rules of §10: 2xx delivered; any other HTTP response failed at once; no response
// retried after base × 2^(n−1) (capped at 24 h) while attempts remain, then failed.
import { WEBHOOK_DEFAULTS, WEBHOOK_MESSAGES, WebhookDeliveryStatus } from './webhook-event-types';

/** What one attempt produced: an HTTP response of any status, or none at all. */
export type AttemptResult =
  { kind: 'response'; status: number; body: string } | { kind: 'no_response'; reason: string };

export interface AttemptOutcome {
  status: WebhookDeliveryStatus;
  httpStatusCode: number | null;
  /** Stored on the attempt: the reason of this attempt alone. */
  attemptError: string | null;
  /** Stored on the delivery: with the `Max retries exceeded` prefix once retrying stops. */
  deliveryError: string | null;
  responseBody: string | null;
  nextRetryAt: Date | null;
  deliveredAt: Date | null;
}

/** Wait before the attempt after attempt `n` (1-based) failed without a response. */
export function retryDelayMs(n: number, baseMs: number): number {
  return Math.min(baseMs * 2 ** (n - 1), WEBHOOK_DEFAULTS.maxRetryDelayMs);
}

export function decideOutcome(
  result: AttemptResult,
  attemptNumber: number,
  maxRetries: number,
  finishedAt: Date,
  baseMs: number,
): AttemptOutcome {
  if (result.kind === 'response') {
    const ok = result.status >= 200 && result.status < 300;
    const error = ok ? null : `HTTP ${result.status} response`;
    return {
      status: ok ? 'delivered' : 'failed',
      httpStatusCode: result.status,
      attemptError: error,
      deliveryError: error,
      responseBody: result.body,
      nextRetryAt: null,
      deliveredAt: ok ? finishedAt : null,
    };
  }
  const exhausted = attemptNumber >= maxRetries;
  return {
    status: exhausted ? 'failed' : 'pending',
    httpStatusCode: null,
    attemptError: result.reason,
    deliveryError: exhausted ? WEBHOOK_MESSAGES.maxRetriesPrefix + result.reason : result.reason,
    responseBody: null,
    nextRetryAt: exhausted
      ? null
      : new Date(finishedAt.getTime() + retryDelayMs(attemptNumber, baseMs)),
    deliveredAt: null,
  };
}
