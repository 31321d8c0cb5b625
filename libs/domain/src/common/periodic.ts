// The one periodic-task helper: a task run on a timer rather than as a queue job (so it keeps
// running when Redis has lost every job), never two runs at once, stopped at shutdown. A failed
// run is logged and the next tick tries again. A task about shared state runs once per period
// across replicas (scope 'cluster', claimed in periodic_runs); one about the process's own state,
// or a poller whose rows are claimed with SKIP LOCKED, runs in every process (scope 'process').
import { Inject, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { hostname } from 'node:os';
import { PeriodicRunRepository } from './periodic-run.repository';

/** This process among the replicas, as recorded in periodic_runs.ran_by and in the run logs. */
export const REPLICA = `${hostname()}:${process.pid}`;

/**
 * The shortest time between two claimed runs of a task started every `intervalMs`: 10 % less
 * than the interval, so that the winning replica's own next tick, a little early by timer
 * jitter, still wins, while another replica's tick within the period is refused.
 */
export function claimPeriodMs(intervalMs: number): number {
  return Math.floor(intervalMs * 0.9);
}

export interface PeriodicStart {
  /** Also runs the task at once. */
  now?: boolean;
  /** A tick during a run asks for one more run right after it (`runAfter`) instead of joining it. */
  catchUp?: boolean;
  /** Asked before each run the timer starts (not before a direct `run()`); false skips it. */
  claim?: () => Promise<boolean>;
}

export class Periodic {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private next?: Promise<void>;

  constructor(
    private readonly name: string,
    private readonly logger: Logger,
    private readonly task: () => Promise<unknown>,
  ) {}

  /** Starts the timer. */
  start(ms: number, { now = false, catchUp = false, claim }: PeriodicStart = {}): void {
    this.timer = setInterval(() => void (catchUp ? this.runAfter(claim) : this.run(claim)), ms);
    this.timer.unref();
    if (now) void this.run(claim);
  }

  /**
   * One run, unless one is already under way (then that one is awaited). With `claim`, the run
   * happens only if the claim answers true.
   */
  run(claim?: () => Promise<boolean>): Promise<void> {
    this.running ??= (claim ? claim().then((ok) => (ok ? this.task() : undefined)) : this.task())
      .then(
        () => undefined,
        (err: Error) => this.logger.warn({ msg: `${this.name} failed`, err: err.message }),
      )
      .finally(() => (this.running = undefined));
    return this.running;
  }

  /**
   * A run that starts once the one under way (if any) is over, for news that run may have
   * missed; calls made meanwhile share it (and the first one's `claim`). Resolves when it is done.
   */
  runAfter(claim?: () => Promise<boolean>): Promise<void> {
    if (!this.running) return this.run(claim);
    this.next ??= this.running.then(() => {
      this.next = undefined;
      return this.run(claim);
    });
    return this.next;
  }

  /** Stops the timer and waits for a run under way. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
    await this.next;
  }
}

/**
 * A provider that runs one task every `intervalMs()` from the application's start until its
 * shutdown (with `runAtStart`, also once at the start). Each task states its `scope`: 'cluster'
 * for work on shared state (the timer's runs first claim the period, so one replica runs it per
 * period), 'process' for work that every replica does for itself.
 */
export abstract class PeriodicTask implements OnApplicationBootstrap, OnApplicationShutdown {
  protected readonly logger = new Logger(this.constructor.name);
  protected readonly runAtStart: boolean = false;
  protected abstract readonly scope: 'cluster' | 'process';
  // A property, not a constructor parameter, so that every task gets it without passing it on.
  @Inject(PeriodicRunRepository) private readonly runs!: PeriodicRunRepository;
  private readonly periodic = new Periodic(this.constructor.name, this.logger, () =>
    this.runLogged(),
  );

  protected abstract intervalMs(): number;
  protected abstract run(): Promise<unknown>;

  /** One run now (or the one under way), whatever the scope: no claim is asked. */
  runNow(): Promise<void> {
    return this.periodic.run();
  }

  onApplicationBootstrap(): void {
    const interval = this.intervalMs();
    const claim = this.scope === 'cluster' ? () => this.claim(interval) : undefined;
    this.periodic.start(interval, { now: this.runAtStart, claim });
  }

  onApplicationShutdown(): Promise<void> {
    return this.periodic.stop();
  }

  private async claim(intervalMs: number): Promise<boolean> {
    const name = this.constructor.name;
    const claimed = await this.runs.claim(name, claimPeriodMs(intervalMs), REPLICA);
    if (!claimed)
      this.logger.debug({ msg: `${name} skipped`, scope: this.scope, replica: REPLICA });
    return claimed;
  }

  /** The run and its one log line: at info for a cluster-wide task, at debug for a per-process one. */
  private async runLogged(): Promise<void> {
    const started = performance.now();
    const result = await this.run();
    const line = {
      msg: `${this.constructor.name} ran`,
      scope: this.scope,
      replica: REPLICA,
      ms: Math.round(performance.now() - started),
      ...outcome(result),
    };
    if (this.scope === 'cluster') this.logger.log(line);
    else this.logger.debug(line);
  }
}

/** What a run answered, for its log line: a count, or the counts of an object (nothing else). */
function outcome(result: unknown): { result?: unknown } {
  if (typeof result === 'number') return { result };
  if (Array.isArray(result)) return { result: result.length };
  if (result && typeof result === 'object') {
    const counts = Object.entries(result).filter(([, v]) => typeof v === 'number');
    if (counts.length) return { result: Object.fromEntries(counts) };
  }
  return {};
}
