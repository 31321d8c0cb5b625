// Waiting in tests, two ways only: until something happens (waitFor), and, for the claims that
// something does NOT happen, watching for a bounded time (holdsFor). Shared by the e2e files and
// the resilience suite.

export interface WaitOptions {
  /** Named in the timeout error: "timed out after 15 s waiting for <what>". */
  what?: string;
  timeoutMs?: number;
  everyMs?: number;
}

/** How long holdsFor watches unless told otherwise. */
export const SETTLE_MS = 500;

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Calls `probe` every `everyMs` until it returns something other than undefined, null or false,
 * and returns that. A probe that throws is called again (the thing may not be up yet); at the
 * deadline the error says what was awaited and the probe's last error, if any.
 */
export async function waitFor<T>(
  probe: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  { what = 'a condition', timeoutMs = 15_000, everyMs = 25 }: WaitOptions = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== null && value !== false) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) {
      const why = last instanceof Error ? `: ${last.message}` : '';
      throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}${why}`, {
        cause: last,
      });
    }
    await pause(everyMs);
  }
}

/**
 * Asserts that nothing changes for `forMs`: runs `check` every `everyMs` and fails at once when it
 * throws (an expectation) or returns false. For "no second request arrives", "the failed delivery
 * is not sent again": claims no event can end, so the watch is bounded. Anything a test can wait
 * for instead (a count reached, a row's state, a receiver's call) goes through waitFor.
 */
export async function holdsFor(
  check: () => boolean | void | Promise<boolean | void>,
  { what = 'the condition', forMs = SETTLE_MS, everyMs = 25 } = {},
): Promise<void> {
  const until = Date.now() + forMs;
  for (;;) {
    if ((await check()) === false) throw new Error(`${what} no longer holds`);
    if (Date.now() >= until) return;
    await pause(Math.min(everyMs, Math.max(0, until - Date.now())));
  }
}
