import { Clock } from '@app/domain/common/clock';

/** A clock the test moves by hand. */
export class ManualClock extends Clock {
  constructor(private current: Date) {
    super();
  }
  now(): Date {
    return new Date(this.current.getTime());
  }
  set(at: Date | string): void {
    this.current = new Date(at);
  }
  advance(ms: number): void {
    this.current = new Date(this.current.getTime() + ms);
  }
}

/**
 * The system's clock until `freeze`; then a clock the test moves by hand, until `release`. For an
 * app shared by a file's tests, of which one needs to hold time still.
 */
export class SteeredClock extends Clock {
  private frozen: Date | null = null;
  now(): Date {
    return this.frozen ? new Date(this.frozen.getTime()) : new Date();
  }
  /** Holds the time at `at` (by default the system's now). */
  freeze(at: Date = new Date()): void {
    this.frozen = new Date(at.getTime());
  }
  advance(ms: number): void {
    if (!this.frozen) throw new Error('advance() needs a frozen clock');
    this.frozen = new Date(this.frozen.getTime() + ms);
  }
  release(): void {
    this.frozen = null;
  }
}
