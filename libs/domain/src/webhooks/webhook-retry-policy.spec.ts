// The outcome rules of an attempt and the retry delays.
import { decideOutcome, retryDelayMs } from './webhook-retry-policy';

describe('webhook retry policy', () => {
  const at = new Date('2025-01-01T00:00:00.000Z');

  it('waits 5 × 2^(n−1) s after attempt n, capped at 24 h', () => {
    expect([1, 2, 3, 4, 5].map((n) => retryDelayMs(n, 5000))).toEqual([
      5000, 10000, 20000, 40000, 80000,
    ]);
    expect(retryDelayMs(20, 5000)).toBe(24 * 3600 * 1000);
    // The default 5 attempts: retrying stops about 75 s after the first attempt.
    expect([1, 2, 3, 4].reduce((sum, n) => sum + retryDelayMs(n, 5000), 0)).toBe(75_000);
  });

  it('delivers on any 2xx', () => {
    for (const status of [200, 201, 204, 299]) {
      expect(decideOutcome({ kind: 'response', status, body: 'ok' }, 1, 5, at, 5000)).toEqual({
        status: 'delivered',
        httpStatusCode: status,
        attemptError: null,
        deliveryError: null,
        responseBody: 'ok',
        nextRetryAt: null,
        deliveredAt: at,
      });
    }
  });

  it('fails at once, without a retry, on any other HTTP response', () => {
    for (const status of [100, 301, 302, 400, 401, 404, 410, 429, 500, 503]) {
      const o = decideOutcome({ kind: 'response', status, body: 'x' }, 1, 5, at, 5000);
      expect(o).toMatchObject({ status: 'failed', httpStatusCode: status, nextRetryAt: null });
      expect(o.deliveryError).toBe(`HTTP ${status} response`);
    }
  });

  it('retries a missing response while attempts remain, then fails with the prefix', () => {
    const r = { kind: 'no_response', reason: 'Request timed out after 30s' } as const;
    const second = decideOutcome(r, 2, 5, at, 5000);
    expect(second).toMatchObject({ status: 'pending', httpStatusCode: null });
    expect(second.nextRetryAt!.getTime() - at.getTime()).toBe(10_000);
    expect(second.deliveryError).toBe('Request timed out after 30s');
    const last = decideOutcome(r, 5, 5, at, 5000);
    expect(last).toMatchObject({ status: 'failed', nextRetryAt: null });
    expect(last.deliveryError).toBe(
      'Max retries exceeded. Last error: Request timed out after 30s',
    );
    expect(last.attemptError).toBe('Request timed out after 30s');
    expect(decideOutcome(r, 1, 1, at, 5000).status).toBe('failed');
  });
});
