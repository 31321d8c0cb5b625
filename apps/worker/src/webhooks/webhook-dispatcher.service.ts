// The dispatcher: woken with delivery ids (PostgreSQL NOTIFY from emit), it claims them in
// batches (one statement each), signs and sends the stored bodies with bounded concurrency, and
// records attempts and outcomes of §10 in group-committed statements. The due-retry scan uses it too.
import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import type { AppConfig } from '@app/domain';
import {
  APP_CONFIG,
  ClaimedDelivery,
  Clock,
  FinishedAttempt,
  LEASE_MARGIN_SECONDS,
  decideOutcome,
  signatureHeader,
  signingKey,
  WEBHOOK_MESSAGES,
  WebhookDeliveryRepository,
} from '@app/domain';
import type { KeyObject } from 'node:crypto';
import { Batcher, Semaphore } from './flow-control';
import { WebhookHttpClient } from './webhook-http.client';

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

/** Most deliveries one claim statement takes. */
const CLAIM_BATCH = 300;
/**
 * Claimed ahead (waiting for a request slot or being sent), per request slot: enough to keep the
 * slots busy while the next claim runs on a loaded database, with claims of half as many.
 */
const AHEAD_PER_SLOT = 8;
/**
 * A claim waits until it can take this many per slot (or every woken id): a claim statement
 * costs the database about as much as a hundred claimed rows, so small claims are wasteful
 * (the bench's claims of 115–145 rows became 200–230 going from 2 to 4 with 8 ahead, and
 * PostgreSQL's CPU per delivery fell by about a fifth).
 */
const CLAIM_MIN_PER_SLOT = 4;
/**
 * Claim statements at once: one, and a second only while the first runs and a backlog of a full
 * statement waits, so a slow claim does not leave the request slots without deliveries.
 */
const CLAIMS_IN_FLIGHT = 2;
/** The claim that fills idle request slots (a burst's first) takes this many per slot. */
const FIRST_CLAIM_PER_SLOT = 2;
/** Sent and waiting for their outcome to be recorded, per request slot, before claiming pauses. */
const RECORDING_PER_SLOT = 16;
/** Most outcomes one record statement takes, per request slot. */
const RECORD_MAX_PER_SLOT = 8;
/**
 * An outcome statement waits (up to RECORD_LINGER_MS) for this many outcomes per slot while
 * claimed deliveries are still being sent: each statement costs PostgreSQL about a millisecond
 * of CPU besides its rows (measured alone: 150 µs per delivery in statements of 10, 55 µs in
 * statements of 200), and the bench's statements of 80–100 outcomes became 150–230 with it.
 */
const RECORD_MIN_PER_SLOT = 4;
const RECORD_LINGER_MS = 20;

@Injectable()
export class WebhookDispatcher implements OnApplicationShutdown {
  private readonly logger = new Logger(WebhookDispatcher.name);
  private attempts = 0;
  private recorded = 0;
  private claimStatements = 0;
  private recordStatements = 0;
  /**
   * Outcomes are recorded by one statement at a time, each taking every attempt that finished
   * while the previous one ran: a durable commit (a WAL flush) costs more than the rows it
   * carries, so fewer, larger statements leave the database more time for the rows.
   */
  private readonly finishes: Batcher<FinishedAttempt, boolean>;

  /** Request slots (WEBHOOK_CONCURRENCY), shared by woken deliveries and the retry scan. */
  private readonly slots: Semaphore;
  /** Deliveries announced by a wake-up and not claimed yet, in arrival order. */
  private readonly woken = new Set<string>();
  /**
   * Claimed by the pump and not sent yet (waiting for a slot, or being sent). A few times the
   * slots keeps them busy while the next claim runs; more would only hold leases longer.
   */
  private ahead = 0;
  private readonly aheadMax: number;
  /** Sent, outcome not recorded yet: no slot and no lease worry, but bounded all the same. */
  private recording = 0;
  private readonly recordingMax: number;
  /** Ids in claim statements that have not returned yet, and those statements. */
  private claiming = 0;
  private claimsInFlight = 0;
  private paused = false;
  /** Called when the pipe empties, while shutting down. */
  private drained?: () => void;

  constructor(
    private readonly deliveries: WebhookDeliveryRepository,
    private readonly http: WebhookHttpClient,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.slots = new Semaphore(config.webhookConcurrency);
    this.aheadMax = AHEAD_PER_SLOT * config.webhookConcurrency;
    this.recordingMax = RECORDING_PER_SLOT * config.webhookConcurrency;
    this.finishes = new Batcher(
      async (items) => {
        this.recordStatements += 1;
        const kept = await this.deliveries.finishAttempts(items, this.clock.now());
        return items.map((i) => kept.has(i.claimed.id));
      },
      RECORD_MAX_PER_SLOT * config.webhookConcurrency,
      1,
      {
        minBatch: RECORD_MIN_PER_SLOT * config.webhookConcurrency,
        ms: RECORD_LINGER_MS,
        // Attempts claimed and not sent yet will submit outcomes soon; without any, a small
        // batch (a lone delivery, the end of a burst) is recorded at once.
        more: () => this.ahead > 0,
        // The last outcomes of a burst do not wait behind the statement under way.
        lastFlushes: 2,
      },
    );
  }

  /** Attempts made by this process (exposed for metrics). */
  get attemptsMade(): number {
    return this.attempts;
  }

  /** Attempts of this process whose outcome is recorded (exposed for metrics). */
  get attemptsRecorded(): number {
    return this.recorded;
  }

  /** Claim and record statements run by the pump and the recorder (exposed for the bench). */
  get statements(): { claims: number; records: number } {
    return { claims: this.claimStatements, records: this.recordStatements };
  }

  /** Woken deliveries not claimed yet (exposed for metrics). */
  get backlog(): number {
    return this.woken.size;
  }

  /**
   * Deliveries were stored or resent: claim them (in batches, one statement each) and attempt
   * them. An id another worker claims first, or that is not due, is skipped.
   */
  wake(deliveryIds: Iterable<string>): void {
    for (const id of deliveryIds) this.woken.add(id);
    this.pump();
  }

  /** Stops claiming woken deliveries (they accumulate) until `resume`; attempts under way go on. */
  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
    this.pump();
  }

  async onApplicationShutdown(): Promise<void> {
    this.paused = true;
    if (this.ahead + this.recording + this.claiming > 0)
      await new Promise<void>((resolve) => (this.drained = resolve));
  }

  /**
   * Claims woken ids while there is room ahead, in statements of CLAIM_BATCH at most, without
   * waiting for a claim to return before the next one: a claim runs while the deliveries claimed
   * before it are being sent, and a second one starts when a slow claim would let them run out
   * (CLAIMS_IN_FLIGHT). With little room, or too many outcomes waiting to be recorded, it stops;
   * every attempt that moves on calls it again, so claims stay batched and leases stay short.
   */
  private pump(): void {
    const concurrency = this.config.webhookConcurrency;
    while (this.woken.size && !this.paused && this.claimsInFlight < CLAIMS_IN_FLIGHT) {
      if (this.recording >= this.recordingMax) return;
      const least = CLAIM_MIN_PER_SLOT * concurrency;
      // A second claim in flight only for a backlog worth a full statement: a trickle of
      // wake-ups waits for the claim under way, and its ids go together in the next one.
      if (this.claimsInFlight > 0 && this.woken.size < least) return;
      const room = this.aheadMax - this.ahead - this.claiming;
      let size: number;
      if (this.ahead + this.claiming < concurrency && this.woken.size > least) {
        // Request slots are about to be idle and a backlog waits: a smaller claim returns
        // sooner, and the next, full-size one follows at once. A smaller backlog goes whole.
        size = Math.min(room, FIRST_CLAIM_PER_SLOT * concurrency);
      } else {
        if (room < Math.min(this.woken.size, least)) return;
        size = Math.min(room, CLAIM_BATCH);
      }
      const batch: string[] = [];
      for (const id of this.woken) {
        if (batch.length >= size) break;
        batch.push(id);
        this.woken.delete(id);
      }
      this.claimsInFlight += 1;
      this.claiming += batch.length;
      this.claimStatements += 1;
      this.deliveries.claimByIds(batch, this.clock.now()).then(
        (claimed) => this.claimed(batch.length, claimed),
        (err: Error) => {
          // The rows are durable: the scan sends them once they are stale.
          this.logger.warn({
            msg: 'webhook claim failed; the scan will send these deliveries',
            count: batch.length,
            err: err.message,
          });
          this.claimed(batch.length, []);
        },
      );
    }
  }

  /** A claim statement returned: its deliveries start (even when paused: their leases are held). */
  private claimed(asked: number, claimed: ClaimedDelivery[]): void {
    this.claimsInFlight -= 1;
    this.claiming -= asked;
    for (const c of claimed) this.start(c);
    this.settled();
    this.pump();
  }

  private start(claimed: ClaimedDelivery): void {
    this.ahead += 1;
    void this.run(claimed);
  }

  /** One claimed delivery through the pipe: attempted, recorded, its places freed. */
  private async run(claimed: ClaimedDelivery): Promise<void> {
    let sent = false;
    const onSent = () => {
      sent = true;
      this.ahead -= 1;
      this.recording += 1;
      this.pump();
    };
    try {
      await this.dispatchClaimed(claimed, onSent);
    } catch (err) {
      this.logger.error({
        msg: 'webhook attempt failed',
        deliveryId: claimed.id,
        err: (err as Error).message,
      });
    } finally {
      if (sent) this.recording -= 1;
      else this.ahead -= 1;
      this.settled();
      this.pump();
    }
  }

  /** While shutting down: resolves the wait once nothing is claimed, sent or recorded any more. */
  private settled(): void {
    if (this.drained && this.ahead + this.recording + this.claiming === 0) this.drained();
  }

  /**
   * Attempts one claimed delivery once a request slot is free. A lease that waited long for its
   * slot is renewed before sending, so it cannot expire (and be taken by another worker) while
   * the request runs.
   */
  private async dispatchClaimed(
    claimed: ClaimedDelivery,
    onSent: () => void,
  ): Promise<DispatchResult> {
    if (!claimed.endpoint.isActive) return this.attempt(claimed, () => undefined);
    const claimedAt = performance.now();
    if (this.slots.tryAcquire(1) === 0) await this.slots.acquire();
    const release = once(() => this.slots.release());
    try {
      if (performance.now() - claimedAt > RENEW_AFTER_MS) {
        const renewed = await this.deliveries.renewLease(claimed, this.clock.now());
        if (!renewed) return 'lease_lost';
      }
      return await this.attempt(claimed, () => {
        release();
        onSent();
      });
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
    const started = performance.now();
    this.attempts += 1;
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
    const kept = await this.finishes.submit({ claimed, outcome, startedAt, durationMs });
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
