// Windows that live in Redis (a TTL set by the request that opened them) run on the real clock. A
// test bounds what is left of one from below by the time read before it was opened: an order, true
// however slowly the test runs, instead of "more than X is left".

/** The least of a `totalMs` window, opened after `openedAt` (Date.now()), that can be left now. */
export function leastLeftMs(openedAt: number, totalMs: number): number {
  return totalMs - (Date.now() - openedAt);
}
