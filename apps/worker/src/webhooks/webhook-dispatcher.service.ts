// One attempt of a delivery: claim the lease, sign and send the stored body, record the attempt
// and the outcome of §10 in one statement. The Bull processor and the due-retry scan both call it.
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { AppConfig } from '@app/domain';
import {
  APP_CONFIG,
  ClaimedDelivery,
  Clock,
  decideOutcome,
  signatureHeader,
  WEBHOOK_MESSAGES,
  WebhookDeliveryRepository,
  WebhookEnvelope,
} from '@app/domain';
import { WebhookHttpClient } from './webhook-http.client';

/** The request body: the stored envelope in a fixed key order, the same bytes on every attempt. */
export function envelopeBody(p: WebhookEnvelope): string {
  return JSON.stringify({
    delivery_id: p.delivery_id,
    type: p.type,
    timestamp: p.timestamp,
    data: p.data,
  });
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

export type DispatchResult = 'not_claimed' | 'attempted' | 'lease_lost' | 'endpoint_inactive';

@Injectable()
export class WebhookDispatcher {
  private readonly logger = new Logger(WebhookDispatcher.name);
  private attempts = 0;

  constructor(
    private readonly deliveries: WebhookDeliveryRepository,
    private readonly http: WebhookHttpClient,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Attempts made by this process (exposed for metrics). */
  get attemptsMade(): number {
    return this.attempts;
  }

  /** Claims one delivery by id (a queued first attempt or resend) and attempts it. */
  async dispatchById(deliveryId: string): Promise<DispatchResult> {
    const claimed = await this.deliveries.claimById(deliveryId, this.clock.now());
    if (!claimed) return 'not_claimed';
    return this.attempt(claimed);
  }

  /** Claims up to `limit` due deliveries; the caller attempts each. */
  claimDue(limit: number): Promise<ClaimedDelivery[]> {
    return this.deliveries.claimDue(this.clock.now(), limit);
  }

  async attempt(claimed: ClaimedDelivery): Promise<DispatchResult> {
    if (!claimed.endpoint.isActive) {
      await this.deliveries.failWithoutAttempt(
        claimed,
        WEBHOOK_MESSAGES.endpointInactive,
        this.clock.now(),
      );
      return 'endpoint_inactive';
    }
    const body = envelopeBody(claimed.payload);
    const startedAt = this.clock.now();
    const started = process.hrtime.bigint();
    this.attempts += 1;
    const result = await this.http.send({
      url: claimed.endpoint.url,
      headers: requestHeaders(claimed, body, startedAt),
      body,
      timeoutMs: claimed.endpoint.timeoutSeconds * 1000,
    });
    const durationMs = Math.round(Number(process.hrtime.bigint() - started) / 1e6);
    const finishedAt = this.clock.now();
    const outcome = decideOutcome(
      result,
      claimed.attemptCount + 1,
      claimed.endpoint.maxRetries,
      finishedAt,
      this.config.webhookRetryBaseMs,
    );
    const kept = await this.deliveries.finishAttempt(
      claimed,
      outcome,
      { startedAt, durationMs },
      finishedAt,
    );
    if (!kept) {
      this.logger.warn({
        msg: 'webhook lease lost before the attempt was recorded',
        deliveryId: claimed.id,
      });
      return 'lease_lost';
    }
    if (outcome.status !== 'delivered') {
      this.logger.log({
        msg: 'webhook attempt failed',
        deliveryId: claimed.id,
        organizationId: claimed.organizationId,
        attempt: claimed.attemptCount + 1,
        status: outcome.status,
        httpStatusCode: outcome.httpStatusCode,
        reason: outcome.attemptError,
      });
    }
    return 'attempted';
  }
}
