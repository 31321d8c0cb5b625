// Flow control of the dispatcher: its request slots (Semaphore) and a release that runs once.

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
