// One attempt of a delivery: claim the lease, sign and send the stored body, record the attempt
// and the outcome of §10 in one statement. The Bull processor and the due-retry scan both call it.
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { AppConfig } from '@app/domain';
import {
  APP_CONFIG,
  ClaimedDelivery,
  Clock,
  FinishedAttempt,
  LEASE_MARGIN_SECONDS,
  decideOutcome,
  signatureHeader,
  WEBHOOK_MESSAGES,
  WebhookDeliveryRepository,
} from '@app/domain';
import { Batcher, Semaphore } from './flow-control';
import { WebhookHttpClient } from './webhook-http.client';

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

/** Half the lease margin: a lease older than this when its slot frees up is renewed first. */
const RENEW_AFTER_MS = (LEASE_MARGIN_SECONDS * 1000) / 2;

function once(fn: () => void): () => void {
  let done = false;
  return () => {
    if (!done) {
      done = true;
      fn();
    }
  };
}

export type DispatchResult = 'not_claimed' | 'attempted' | 'lease_lost' | 'endpoint_inactive';

@Injectable()
export class WebhookDispatcher {
  private readonly logger = new Logger(WebhookDispatcher.name);
  private attempts = 0;
  /** Claims of queued jobs running at the same time share one UPDATE. */
  private readonly claims = new Batcher<string, ClaimedDelivery | null>(async (ids) => {
    const claimed = await this.deliveries.claimByIds([...new Set(ids)], this.clock.now());
    const byId = new Map(claimed.map((c) => [c.id, c]));
    // Two jobs of one delivery in a batch: only the first gets the lease.
    return ids.map((id) => {
      const c = byId.get(id) ?? null;
      byId.delete(id);
      return c;
    });
  });
  /** Attempts finishing at the same time are recorded by one statement. */
  private readonly finishes = new Batcher<FinishedAttempt, boolean>(async (items) => {
    const kept = await this.deliveries.finishAttempts(items, this.clock.now());
    return items.map((i) => kept.has(i.claimed.id));
  });

  /** Request slots (WEBHOOK_CONCURRENCY), shared by queued jobs and the retry scan. */
  private readonly slots: Semaphore;

  constructor(
    private readonly deliveries: WebhookDeliveryRepository,
    private readonly http: WebhookHttpClient,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.slots = new Semaphore(config.webhookConcurrency);
  }

  /** Attempts made by this process (exposed for metrics). */
  get attemptsMade(): number {
    return this.attempts;
  }

  /**
   * Attempts one delivery by id (a queued first attempt or a resend): claims its lease, then
   * waits for a request slot. A lease that waited long for its slot is renewed before sending, so
   * it cannot expire (and be taken by another worker) while the request runs.
   */
  async dispatchById(deliveryId: string): Promise<DispatchResult> {
    const claimed = await this.claims.submit(deliveryId);
    if (!claimed) return 'not_claimed';
    if (!claimed.endpoint.isActive) return this.attempt(claimed, () => undefined);
    const claimedAt = performance.now();
    await this.slots.acquire();
    const release = once(() => this.slots.release());
    try {
      if (performance.now() - claimedAt > RENEW_AFTER_MS) {
        const renewed = await this.deliveries.renewLease(claimed, this.clock.now());
        if (!renewed) return 'lease_lost';
      }
      return await this.attempt(claimed, release);
    } finally {
      release();
    }
  }

  /**
   * The due-retry scan: reserves the free request slots, claims at most that many due
   * deliveries and starts their attempts. Returns the attempts started.
   */
  async dispatchDue(): Promise<Promise<DispatchResult>[]> {
    const reserved = this.slots.tryAcquire(this.config.webhookConcurrency);
    if (!reserved) return [];
    let claimed: ClaimedDelivery[] = [];
    try {
      claimed = await this.deliveries.claimDue(this.clock.now(), reserved);
    } finally {
      for (let i = claimed.length; i < reserved; i++) this.slots.release();
    }
    return claimed.map((c) => {
      const release = once(() => this.slots.release());
      return this.attempt(c, release).finally(release);
    });
  }

  /** Sends and records one attempt; `releaseSlot` is called as soon as the request is over. */
  private async attempt(
    claimed: ClaimedDelivery,
    releaseSlot: () => void,
  ): Promise<DispatchResult> {
    if (!claimed.endpoint.isActive) {
      await this.deliveries.failWithoutAttempt(
        claimed,
        WEBHOOK_MESSAGES.endpointInactive,
        this.clock.now(),
      );
      return 'endpoint_inactive';
    }
    const body = claimed.body;
    const startedAt = this.clock.now();
    const started = process.hrtime.bigint();
    this.attempts += 1;
    const result = await this.http.send({
      url: claimed.endpoint.url,
      headers: requestHeaders(claimed, body, startedAt),
      body,
      timeoutMs: claimed.endpoint.timeoutSeconds * 1000,
    });
    // Recording happens outside the slot: a slow database never holds a request slot.
    releaseSlot();
    const durationMs = Math.round(Number(process.hrtime.bigint() - started) / 1e6);
    const finishedAt = this.clock.now();
    const outcome = decideOutcome(
      result,
      claimed.attemptCount + 1,
      claimed.endpoint.maxRetries,
      finishedAt,
      this.config.webhookRetryBaseMs,
    );
    const kept = await this.finishes.submit({ claimed, outcome, startedAt, durationMs });
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
