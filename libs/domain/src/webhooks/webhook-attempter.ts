// One webhook attempt (§10): the signed request sent, its outcome decided and recorded in
// group-committed statements, each only while the delivery's lease is still held.
import { Logger } from '@nestjs/common';
import { Clock } from '../common/clock';
import { MicroBatcher } from '../common/micro-batcher';
import type { AppConfig } from '../config/app-config';
import { WebhookQueueSweeper } from './webhook-queue.sweeper';
import type { ClaimedDelivery, FinishedAttempt } from './webhook-queue.types';
import { WEBHOOK_MESSAGES } from './webhook-event-types';
import { WebhookHttpClient } from './webhook-http.client';
import { requestHeaders } from './webhook-request';
import { decideOutcome } from './webhook-retry-policy';

export type DispatchResult = 'not_claimed' | 'attempted' | 'lease_lost' | 'endpoint_inactive';

/** Most outcomes one record statement takes, per request slot. */
const RECORD_MAX_PER_SLOT = 8;
/**
 * An outcome statement waits (up to RECORD_LINGER_MS) for this many outcomes per slot while
 * claimed deliveries are still being sent: each statement has a fixed cost (a durable commit)
 * besides its rows, so fewer, fuller statements leave the database more time for the rows.
 */
const RECORD_MIN_PER_SLOT = 4;
const RECORD_LINGER_MS = 20;

export class WebhookAttempter {
  private readonly logger = new Logger('WebhookDispatcher');
  /** Attempts made, and attempts whose outcome is recorded. */
  made = 0;
  recorded = 0;
  /**
   * Outcomes are recorded by one statement at a time, each taking every attempt that finished
   * while the previous one ran: a durable commit (a WAL flush) costs more than the rows it
   * carries, so fewer, larger statements leave the database more time for the rows.
   */
  private readonly finishes: MicroBatcher<FinishedAttempt, boolean>;

  /** `more`: attempts claimed and not sent yet, whose outcomes will come soon. */
  constructor(
    private readonly deliveries: WebhookQueueSweeper,
    private readonly http: WebhookHttpClient,
    private readonly clock: Clock,
    private readonly config: AppConfig,
    more: () => boolean,
  ) {
    this.finishes = new MicroBatcher(
      async (items) => {
        const kept = await this.deliveries.finishAttempts(items, this.clock.now());
        return items.map((i) => kept.has(i.claimed.id));
      },
      null,
      RECORD_MAX_PER_SLOT * config.webhookConcurrency,
      1,
      {
        minBatch: RECORD_MIN_PER_SLOT * config.webhookConcurrency,
        ms: RECORD_LINGER_MS,
        // Attempts claimed and not sent yet will submit outcomes soon; without any, a small
        // batch (a lone delivery, the end of a burst) is recorded at once.
        more,
        // The last outcomes of a burst do not wait behind the statement under way.
        lastFlushes: 2,
      },
    );
  }

  /** Sends and records one attempt; `releaseSlot` is called as soon as the request is over. */
  async attempt(claimed: ClaimedDelivery, releaseSlot: () => void): Promise<DispatchResult> {
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
    const started = performance.now();
    this.made += 1;
    const result = await this.http.send({
      url: claimed.endpoint.url,
      headers: requestHeaders(claimed, body, startedAt),
      body,
      timeoutMs: claimed.endpoint.timeoutSeconds * 1000,
    });
    // Recording happens outside the slot: a slow database never holds a request slot.
    releaseSlot();
    const durationMs = Math.round(performance.now() - started);
    const finishedAt = this.clock.now();
    const outcome = decideOutcome(
      result,
      claimed.attemptCount + 1,
      claimed.endpoint.maxRetries,
      finishedAt,
      this.config.webhookRetryBaseMs,
    );
    const kept = await this.finishes.push({ claimed, outcome, startedAt, durationMs });
    if (!kept) {
      this.logger.warn({
        msg: 'webhook lease lost before the attempt was recorded',
        deliveryId: claimed.id,
      });
      return 'lease_lost';
    }
    this.recorded += 1;
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
