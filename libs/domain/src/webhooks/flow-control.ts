// Flow control of the dispatcher.

/**
 * Waiting for a fuller batch: while fewer than `minBatch` calls wait and `more()` says others
 * are about to come (attempts still in flight), a flush waits up to `ms` for them.
 */
export interface Linger {
  minBatch: number;
  ms: number;
  more: () => boolean;
  /**
   * Flushes at once when `more()` says nothing else is coming (at least maxConcurrentFlushes):
   * the last calls of a burst then go in their own statement instead of waiting for the one
   * under way to end.
   */
  lastFlushes?: number;
}

/**
 * Group commit for the dispatcher's statements: calls made while a flush is running wait and go
 * together in the next one, so N concurrent attempts cost far fewer than N round trips. A lone
 * call is not delayed; with a `linger`, a small batch waits briefly for the calls known to be
 * coming, because each flush has a fixed cost (a durable commit) on top of its rows.
 */
export class Batcher<In, Out> {
  private queue: { item: In; resolve: (o: Out) => void; reject: (e: unknown) => void }[] = [];
  private running = 0;
  private lingering?: NodeJS.Timeout;

  constructor(
    private readonly flush: (items: In[]) => Promise<Out[]>,
    private readonly maxBatch = 100,
    private readonly maxConcurrentFlushes = 4,
    private readonly linger?: Linger,
  ) {}

  private flushLimit(): number {
    if (this.running < this.maxConcurrentFlushes || !this.linger?.lastFlushes)
      return this.maxConcurrentFlushes;
    return this.linger.more() ? this.maxConcurrentFlushes : this.linger.lastFlushes;
  }

  submit(item: In): Promise<Out> {
    return new Promise<Out>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.pump(false);
    });
  }

  private pump(lingered: boolean): void {
    while (this.queue.length && this.running < this.flushLimit()) {
      if (
        !lingered &&
        this.linger &&
        this.queue.length < this.linger.minBatch &&
        this.linger.more()
      ) {
        this.lingering ??= setTimeout(() => {
          this.lingering = undefined;
          this.pump(true);
        }, this.linger.ms);
        return;
      }
      lingered = false;
      if (this.lingering) {
        clearTimeout(this.lingering);
        this.lingering = undefined;
      }
      const batch = this.queue.splice(0, this.maxBatch);
      this.running += 1;
      this.flush(batch.map((b) => b.item))
        .then(
          (outs) => batch.forEach((b, i) => b.resolve(outs[i])),
          (err: unknown) => batch.forEach((b) => b.reject(err)),
        )
        .finally(() => {
          this.running -= 1;
          this.pump(false);
        });
    }
  }
}

/** At most `size` slots held at once; `acquire` waits in arrival order. */
export class Semaphore {
  private held = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly size: number) {}

  get inUse(): number {
    return this.held;
  }

  /** Slots free to take now (none while others wait). */
  get free(): number {
    return this.waiting.length ? 0 : this.size - this.held;
  }

  async acquire(): Promise<void> {
    if (this.held < this.size) {
      this.held += 1;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  /** Takes up to `n` free slots without waiting (none while others wait); returns how many. */
  tryAcquire(n: number): number {
    if (this.waiting.length) return 0;
    const got = Math.max(0, Math.min(n, this.size - this.held));
    this.held += got;
    return got;
  }

  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.held -= 1;
  }
}

/** `fn` called at most once, however often the returned function is. */
export function once(fn: () => void): () => void {
  let done = false;
  return () => {
    if (!done) {
      done = true;
      fn();
    }
  };
}
