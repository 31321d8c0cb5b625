// Per-endpoint flow control of the dispatcher (§16): at most `cap` requests of one endpoint in
// flight in this process; deliveries claimed beyond that wait briefly in memory, and an endpoint
// whose waiters linger is backlogged: its deliveries stay in the queue table until it has room.

interface Waiter<T> {
  item: T;
  since: number;
}

interface EndpointState<T> {
  /** Holding one of the endpoint's slots: waiting for a request slot, or sending. */
  active: number;
  waiting: Waiter<T>[];
  /**
   * Due deliveries of the endpoint may be in the queue table unclaimed: wake-ups and the scan
   * leave them there, and a claim for the endpoint alone (oldest first) takes them as it has room.
   */
  backlogged: boolean;
  feeding: boolean;
  /** Leases being handed back; a claim for the endpoint waits for them, to see those rows. */
  releasing: number;
}

export type Admission = 'enter' | 'wait' | 'release';

export class EndpointGate<T> {
  private readonly endpoints = new Map<string, EndpointState<T>>();
  private waitingCount = 0;

  /**
   * @param cap requests in flight per endpoint
   * @param waitMax claimed deliveries per endpoint waiting in memory for one of its slots: enough
   *   to keep a fast endpoint's slots busy while the next claim runs
   */
  constructor(
    readonly cap: number,
    private readonly waitMax: number,
  ) {}

  /** Claimed deliveries waiting for their endpoint's slot (exposed for metrics and the timer). */
  get waiting(): number {
    return this.waitingCount;
  }

  private state(id: string): EndpointState<T> {
    let s = this.endpoints.get(id);
    if (!s) {
      s = { active: 0, waiting: [], backlogged: false, feeding: false, releasing: 0 };
      this.endpoints.set(id, s);
    }
    return s;
  }

  private tidy(id: string, s: EndpointState<T>): void {
    if (!s.active && !s.waiting.length && !s.backlogged && !s.feeding && !s.releasing)
      this.endpoints.delete(id);
  }

  /**
   * A claimed delivery of `endpointId`: it takes a free slot ('enter'), waits for one ('wait'),
   * or, with the waiting room full, goes back to the queue table ('release': the caller hands
   * its lease back and calls `released`), which backlogs the endpoint.
   */
  admit(endpointId: string, item: T, now: number): Admission {
    const s = this.state(endpointId);
    if (s.active < this.cap && !s.waiting.length) {
      s.active += 1;
      return 'enter';
    }
    if (s.waiting.length < this.waitMax) {
      s.waiting.push({ item, since: now });
      this.waitingCount += 1;
      return 'wait';
    }
    s.backlogged = true;
    s.releasing += 1;
    return 'release';
  }

  /**
   * A request of `endpointId` is over: its slot goes to the oldest waiter, returned to be sent,
   * or is freed.
   */
  leave(endpointId: string): T | undefined {
    const s = this.endpoints.get(endpointId);
    if (!s) return undefined;
    const next = s.waiting.shift();
    if (next) {
      this.waitingCount -= 1;
      return next.item;
    }
    s.active -= 1;
    this.tidy(endpointId, s);
    return undefined;
  }

  /**
   * Waiters of endpoints whose oldest has waited `maxWaitMs` or more: such an endpoint turns over
   * more slowly than claims do, so all its waiters go back to the queue table (the caller hands
   * their leases back and calls `released` for each) and it is backlogged.
   */
  lingering(now: number, maxWaitMs: number): { endpointId: string; item: T }[] {
    const out: { endpointId: string; item: T }[] = [];
    for (const [endpointId, s] of this.endpoints) {
      if (!s.waiting.length || now - s.waiting[0].since < maxWaitMs) continue;
      for (const w of s.waiting) out.push({ endpointId, item: w.item });
      this.waitingCount -= s.waiting.length;
      s.releasing += s.waiting.length;
      s.waiting = [];
      s.backlogged = true;
    }
    return out;
  }

  /** A lease handed back by `admit` or `lingering` is released (or failed to be). */
  released(endpointId: string): void {
    const s = this.endpoints.get(endpointId);
    if (!s) return;
    s.releasing -= 1;
    this.tidy(endpointId, s);
  }

  /** Marks an endpoint backlogged (a claim left its deliveries in the queue table). */
  backlog(endpointId: string): void {
    this.state(endpointId).backlogged = true;
  }

  isBacklogged(endpointId: string): boolean {
    return this.endpoints.get(endpointId)?.backlogged ?? false;
  }

  /** Endpoints whose deliveries claims other than their own leave in the queue table. */
  backlogged(): string[] {
    const out: string[] = [];
    for (const [id, s] of this.endpoints) if (s.backlogged) out.push(id);
    return out;
  }

  /**
   * Backlogged endpoints (all, or `only` this one) with free slots and no claim of theirs under
   * way: each is marked as being fed, with how many deliveries to claim for it (its free slots).
   */
  toFeed(only?: string): { endpointId: string; room: number }[] {
    const out: { endpointId: string; room: number }[] = [];
    const candidates: [string, EndpointState<T> | undefined][] =
      only === undefined ? [...this.endpoints] : [[only, this.endpoints.get(only)]];
    for (const [endpointId, s] of candidates) {
      if (!s) continue;
      const room = this.cap - s.active - s.waiting.length;
      if (!s.backlogged || s.feeding || s.releasing || room <= 0) continue;
      s.feeding = true;
      out.push({ endpointId, room });
    }
    return out;
  }

  /** A claim for the endpoint returned `got` of the `asked`; fewer means none is left due. */
  fed(endpointId: string, asked: number, got: number): void {
    const s = this.state(endpointId);
    s.feeding = false;
    if (got < asked) s.backlogged = false;
    this.tidy(endpointId, s);
  }
}
