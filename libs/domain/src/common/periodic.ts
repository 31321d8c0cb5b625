// The one periodic-task helper: a task run on a timer rather than as a queue job (so it keeps
// running when Redis has lost every job), never two runs at once, stopped at shutdown. A failed
// run is logged and the next tick tries again.
import { Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';

export interface PeriodicStart {
  /** Also runs the task at once. */
  now?: boolean;
  /** A tick during a run asks for one more run right after it (`runAfter`) instead of joining it. */
  catchUp?: boolean;
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
  start(ms: number, { now = false, catchUp = false }: PeriodicStart = {}): void {
    this.timer = setInterval(() => void (catchUp ? this.runAfter() : this.run()), ms);
    this.timer.unref();
    if (now) void this.run();
  }

  /** One run, unless one is already under way (then that one is awaited). */
  run(): Promise<void> {
    this.running ??= this.task()
      .then(
        () => undefined,
        (err: Error) => this.logger.warn({ msg: `${this.name} failed`, err: err.message }),
      )
      .finally(() => (this.running = undefined));
    return this.running;
  }

  /**
   * A run that starts once the one under way (if any) is over, for news that run may have
   * missed; calls made meanwhile share it. Resolves when it is done.
   */
  runAfter(): Promise<void> {
    if (!this.running) return this.run();
    this.next ??= this.running.then(() => {
      this.next = undefined;
      return this.run();
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
 * shutdown (with `runAtStart`, also once at the start).
 */
export abstract class PeriodicTask implements OnApplicationBootstrap, OnApplicationShutdown {
  protected readonly logger = new Logger(this.constructor.name);
  protected readonly runAtStart: boolean = false;
  private readonly periodic = new Periodic(this.constructor.name, this.logger, () => this.run());

  protected abstract intervalMs(): number;
  protected abstract run(): Promise<unknown>;

  /** One run now (or the one under way), as the timer would start it. */
  runNow(): Promise<void> {
    return this.periodic.run();
  }

  onApplicationBootstrap(): void {
    this.periodic.start(this.intervalMs(), { now: this.runAtStart });
  }

  onApplicationShutdown(): Promise<void> {
    return this.periodic.stop();
  }
}
