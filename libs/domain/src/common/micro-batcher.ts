// The one batcher (group commit in the application): calls that arrive while a batch is in flight
// are gathered and run as the next batch, so N concurrent callers cost one statement (one round
// trip, one WAL flush) instead of N, and an idle caller waits for nothing.

/**
 * Waiting for a fuller batch: while fewer than `minBatch` calls wait and `more()` says others are
 * about to come, a batch waits up to `ms` for them (each batch has a fixed cost, a durable commit,
 * on top of its rows); otherwise it starts at once. Without a linger, a batch gathers the calls of
 * one turn of the event loop.
 */
export interface Linger {
  minBatch: number;
  ms: number;
  more: () => boolean;
  /**
   * With all `maxInFlight` batches running and `more()` saying nothing else is coming, this many
   * may run at once: the last calls of a burst then go in their own batch instead of waiting for
   * the one under way to end.
   */
  lastFlushes?: number;
}

interface Pending<I, O> {
  item: I;
  resolve: (o: O) => void;
  reject: (e: unknown) => void;
}

export class MicroBatcher<I, O> {
  private pending: Pending<I, O>[] = [];
  private inFlight = 0;
  private scheduled = false;
  private lingering?: NodeJS.Timeout;

  constructor(
    /** Runs one batch; returns one result per item, in order. */
    private readonly runBatch: (items: I[]) => Promise<O[]>,
    /**
     * Runs one item alone: used for a batch of one, and for each item of a failed batch, so one
     * bad item cannot sink the others. Without it, a failed batch fails every item.
     */
    private readonly runOne: ((item: I) => Promise<O>) | null,
    private readonly maxBatch = 64,
    private readonly maxInFlight = 2,
    private readonly linger?: Linger,
  ) {}

  push(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      this.schedule();
    });
  }

  /** Batches allowed to run now. */
  private limit(): number {
    const last = this.linger?.lastFlushes;
    if (!last || this.inFlight < this.maxInFlight || this.linger!.more()) return this.maxInFlight;
    return last;
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight >= this.limit() || !this.pending.length) return;
    // With a linger, the linger decides how long a batch waits for company.
    if (this.linger) return this.flush(false);
    this.scheduled = true;
    // Let the callers of this turn of the event loop join the batch.
    setImmediate(() => {
      this.scheduled = false;
      this.flush(false);
    });
  }

  private flush(lingered: boolean): void {
    if (this.inFlight >= this.limit() || !this.pending.length) return;
    const l = this.linger;
    if (!lingered && l && this.pending.length < l.minBatch && l.more()) {
      this.lingering ??= setTimeout(() => {
        this.lingering = undefined;
        this.flush(true);
      }, l.ms);
      return;
    }
    clearTimeout(this.lingering);
    this.lingering = undefined;
    const batch = this.pending.splice(0, this.maxBatch);
    this.inFlight++;
    this.run(batch).finally(() => {
      this.inFlight--;
      this.schedule();
    });
  }

  private run(batch: Pending<I, O>[]): Promise<void> {
    const items = batch.map((b) => b.item);
    const runOne = this.runOne;
    const out =
      batch.length === 1 && runOne ? runOne(items[0]).then((o) => [o]) : this.runBatch(items);
    return out.then(
      (results) => batch.forEach((b, i) => b.resolve(results[i])),
      (err: unknown) => {
        if (batch.length === 1 || !runOne) return batch.forEach((b) => b.reject(err));
        // Retry each alone: the error belongs to the items that fail again.
        for (const b of batch) runOne(b.item).then(b.resolve, b.reject);
      },
    );
  }
}
