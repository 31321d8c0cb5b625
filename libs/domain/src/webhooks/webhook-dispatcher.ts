// The dispatcher: woken with delivery ids (PostgreSQL NOTIFY from emit), it claims them in
// batches (one statement each), signs and sends the stored bodies with bounded concurrency, and
// records attempts and outcomes of §10 in group-committed statements, at most
// WEBHOOK_ENDPOINT_CONCURRENCY requests per endpoint (§16). The due-retry scan uses it too.
import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { Clock } from '../common/clock';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { EndpointGate } from './endpoint-gate';
import { MicroBatcher } from '../common/micro-batcher';
import { once, Semaphore } from './flow-control';
import { DispatchResult, WebhookAttempter } from './webhook-attempter';
import { LEASE_MARGIN_SECONDS, WebhookQueueSweeper } from './webhook-queue.sweeper';
import type { ClaimedDelivery } from './webhook-queue.types';
import { WebhookHttpClient } from './webhook-http.client';

/** Half the lease margin: a lease older than this when its slot frees up is renewed first. */
const RENEW_AFTER_MS = (LEASE_MARGIN_SECONDS * 1000) / 2;

/** Most deliveries one claim statement takes. */
const CLAIM_BATCH = 300;
/**
 * Claimed ahead (waiting for a request slot or being sent), per request slot: enough to keep the
 * slots busy while the next claim runs on a loaded database, with claims of half as many.
 */
const AHEAD_PER_SLOT = 8;
/**
 * A claim waits until it can take this many per slot (or every woken id): a claim statement
 * costs the database about as much as a hundred claimed rows, so small claims are wasteful.
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
/**
 * A delivery waits this long at most for its endpoint's slot (held in memory with its lease); an
 * endpoint that turns over more slowly is backlogged, its deliveries left in the queue table.
 */
const ENDPOINT_WAIT_MS = 1000;

@Injectable()
export class WebhookDispatcher implements OnApplicationShutdown {
  private readonly logger = new Logger(WebhookDispatcher.name);
  /** Sends one claimed delivery and records its outcome. */
  private readonly attempter: WebhookAttempter;
  /** Request slots (WEBHOOK_CONCURRENCY), shared by woken deliveries and the retry scan. */
  private readonly slots: Semaphore;
  /**
   * Slots per endpoint (WEBHOOK_ENDPOINT_CONCURRENCY), taken before a request slot: a delivery
   * whose endpoint is full waits without holding a request slot, so one slow endpoint cannot
   * take them all. Claimed deliveries waiting here count as claimed ahead.
   */
  private readonly gate: EndpointGate<{ claimed: ClaimedDelivery; claimedAt: number }>;
  /** Leases handed back for deliveries left to their endpoint's backlog (group-committed). */
  private readonly releases: MicroBatcher<ClaimedDelivery, undefined>;
  private releasing = 0;
  private lingerTimer?: NodeJS.Timeout;
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
    private readonly deliveries: WebhookQueueSweeper,
    private readonly http: WebhookHttpClient,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.slots = new Semaphore(config.webhookConcurrency);
    const perEndpoint = Math.min(config.webhookEndpointConcurrency, config.webhookConcurrency);
    this.gate = new EndpointGate(perEndpoint, (AHEAD_PER_SLOT - 1) * perEndpoint);
    this.releases = new MicroBatcher(
      async (items) => {
        await this.deliveries.releaseLeases(items);
        return items.map(() => undefined);
      },
      null,
      CLAIM_BATCH,
      4,
    );
    this.aheadMax = AHEAD_PER_SLOT * config.webhookConcurrency;
    this.recordingMax = RECORDING_PER_SLOT * config.webhookConcurrency;
    // Attempts claimed and not sent yet will submit outcomes soon.
    this.attempter = new WebhookAttempter(deliveries, http, clock, config, () => this.ahead > 0);
  }

  /** Attempts made by this process (exposed for metrics). */
  get attemptsMade(): number {
    return this.attempter.made;
  }

  /** Attempts of this process whose outcome is recorded (exposed for metrics). */
  get attemptsRecorded(): number {
    return this.attempter.recorded;
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
    if (this.ahead + this.recording + this.claiming + this.releasing > 0)
      await new Promise<void>((resolve) => (this.drained = resolve));
    clearInterval(this.lingerTimer);
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
      // Deliveries of a backlogged endpoint stay in the queue table: its own claims take them,
      // oldest first, as it has room.
      const excluded = this.gate.backlogged();
      this.deliveries.claimByIds(batch, this.clock.now(), excluded).then(
        (claimed) => this.claimed(batch.length, claimed, excluded),
        (err: Error) => {
          // The rows are durable: the scan sends them once they are stale.
          this.logger.warn({
            msg: 'webhook claim failed; the scan will send these deliveries',
            count: batch.length,
            err: err.message,
          });
          this.claimed(batch.length, [], excluded);
        },
      );
    }
  }

  /** A claim statement returned: its deliveries start (even when paused: their leases are held). */
  private claimed(asked: number, claimed: ClaimedDelivery[], excluded: string[]): void {
    this.claimsInFlight -= 1;
    this.claiming -= asked;
    // An endpoint that left its backlog while this claim ran may have had deliveries left out.
    for (const id of excluded) {
      if (this.gate.isBacklogged(id)) continue;
      this.gate.backlog(id);
      this.feed(id);
    }
    this.admit(claimed);
    this.settled();
    this.pump();
  }

  /** Claimed deliveries through their endpoint's gate: sent, waiting, or back to the table. */
  private admit(claimed: ClaimedDelivery[]): void {
    const now = performance.now();
    for (const c of claimed) {
      const item = { claimed: c, claimedAt: now };
      const admission = c.endpoint.isActive ? this.gate.admit(c.endpoint.id, item, now) : 'enter';
      if (admission === 'release') {
        this.release(c);
        continue;
      }
      this.ahead += 1;
      if (admission === 'enter') void this.run(item);
      else this.lingerTimer ??= setInterval(() => this.lingered(), ENDPOINT_WAIT_MS / 2).unref();
    }
  }

  /** Waiters of endpoints slower than claims go back to the queue table (see ENDPOINT_WAIT_MS). */
  private lingered(): void {
    for (const { item } of this.gate.lingering(performance.now(), ENDPOINT_WAIT_MS)) {
      this.ahead -= 1;
      this.release(item.claimed);
    }
    if (!this.gate.waiting) {
      clearInterval(this.lingerTimer);
      this.lingerTimer = undefined;
    }
    this.settled();
    this.pump();
  }

  /** Hands a claimed delivery's lease back; its endpoint's own claims take it once it has room. */
  private release(claimed: ClaimedDelivery): void {
    this.releasing += 1;
    this.releases
      .push(claimed)
      .catch((err: Error) =>
        // The lease expires by itself; the endpoint's claims or the scan take the row then.
        this.logger.warn({ msg: 'webhook lease not released', err: err.message }),
      )
      .finally(() => {
        this.releasing -= 1;
        this.gate.released(claimed.endpoint.id);
        this.settled();
        this.feed(claimed.endpoint.id);
      });
  }

  /** Claims due deliveries of backlogged endpoints (or `only` this one) with room, oldest first. */
  private feed(only?: string): void {
    if (this.paused) return;
    for (const { endpointId, room } of this.gate.toFeed(only)) {
      this.claiming += room;
      this.deliveries.claimForEndpoint(endpointId, room, this.clock.now()).then(
        (claimed) => {
          this.claiming -= room;
          this.gate.fed(endpointId, room, claimed.length);
          this.admit(claimed);
          this.settled();
          this.feed(endpointId);
        },
        (err: Error) => {
          // Still backlogged: the next freed slot or scan tries again.
          this.logger.warn({ msg: 'webhook endpoint claim failed', err: err.message });
          this.claiming -= room;
          this.gate.fed(endpointId, room, room);
          this.settled();
        },
      );
    }
  }

  /** A request of the endpoint is over: its slot goes to the next waiter, or to its backlog. */
  private left(endpointId: string): void {
    const next = this.gate.leave(endpointId);
    if (next) void this.run(next);
    else this.feed(endpointId);
  }

  /** One claimed delivery through the pipe: attempted, recorded, its places freed. */
  private async run(item: { claimed: ClaimedDelivery; claimedAt: number }): Promise<void> {
    const claimed = item.claimed;
    let sent = false;
    const onSent = () => {
      sent = true;
      this.ahead -= 1;
      this.recording += 1;
      this.pump();
    };
    try {
      await this.dispatchClaimed(claimed, item.claimedAt, onSent);
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
    if (this.drained && this.ahead + this.recording + this.claiming + this.releasing === 0)
      this.drained();
  }

  /**
   * Attempts one claimed delivery once a request slot is free. A lease that waited long for its
   * slot is renewed before sending, so it cannot expire (and be taken by another worker) while
   * the request runs.
   */
  private async dispatchClaimed(
    claimed: ClaimedDelivery,
    claimedAt: number,
    onSent: () => void,
  ): Promise<DispatchResult> {
    if (!claimed.endpoint.isActive) return this.attempter.attempt(claimed, () => undefined);
    // The endpoint's slot is held (the gate admitted it); the request slot is taken here.
    const left = once(() => this.left(claimed.endpoint.id));
    let release = left;
    try {
      if (this.slots.tryAcquire(1) === 0) await this.slots.acquire();
      release = once(() => {
        this.slots.release();
        left();
      });
      if (performance.now() - claimedAt > RENEW_AFTER_MS) {
        const renewed = await this.deliveries.renewLease(claimed, this.clock.now());
        if (!renewed) return 'lease_lost';
      }
      return await this.attempter.attempt(claimed, () => {
        release();
        onSent();
      });
    } finally {
      release();
    }
  }

  /**
   * The due-retry scan: claims at most as many due deliveries as there are free request slots
   * (of endpoints that are not backlogged: their own claims take theirs) and sends them through
   * the endpoints' gates; backlogged endpoints with room are claimed for too. Returns how many
   * the scan claimed.
   */
  async dispatchDue(): Promise<number> {
    this.feed();
    const free = this.slots.free;
    if (!free || this.paused) return 0;
    this.claiming += free;
    let claimed: ClaimedDelivery[] = [];
    try {
      claimed = await this.deliveries.claimDue(this.clock.now(), free, this.gate.backlogged());
    } finally {
      this.claiming -= free;
      this.admit(claimed);
      this.settled();
    }
    return claimed.length;
  }
}
