/** The source of "now" for anything time-windowed; tests inject a fixed or moving clock. */
export abstract class Clock {
  abstract now(): Date;
}

export class SystemClock extends Clock {
  now(): Date {
    return new Date();
  }
}
