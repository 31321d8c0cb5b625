// Group commit in the application: calls that arrive while a batch is in flight are gathered and
// run as the next batch, so under load N concurrent callers cost one statement (one round trip,
// one WAL flush) instead of N, and an idle caller waits for nothing.

export class MicroBatcher<I, O> {
  private pending: { item: I; resolve: (o: O) => void; reject: (e: unknown) => void }[] = [];
  private inFlight = 0;
  private scheduled = false;

  constructor(
    /** Runs one batch; returns one result per item, in order. */
    private readonly runBatch: (items: I[]) => Promise<O[]>,
    /** Runs one item alone: used when its batch failed, so one bad item cannot sink the others. */
    private readonly runOne: (item: I) => Promise<O>,
    private readonly maxBatch = 64,
    private readonly maxInFlight = 2,
  ) {}

  push(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight >= this.maxInFlight || !this.pending.length) return;
    this.scheduled = true;
    // Let the callers of this turn of the event loop join the batch.
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    if (this.inFlight >= this.maxInFlight) return;
    const batch = this.pending.splice(0, this.maxBatch);
    if (!batch.length) return;
    this.inFlight++;
    const done = () => {
      this.inFlight--;
      this.schedule();
    };
    const items = batch.map((b) => b.item);
    (batch.length === 1 ? this.runOne(items[0]).then((o) => [o]) : this.runBatch(items))
      .then(
        (out) => batch.forEach((b, i) => b.resolve(out[i])),
        (err: unknown) => {
          if (batch.length === 1) return batch[0].reject(err);
          // Retry each alone: the error belongs to the items that fail again.
          for (const b of batch) this.runOne(b.item).then(b.resolve, b.reject);
        },
      )
      .finally(done);
  }
}
