// Small helpers of the resilience suite: ports, waiting, percentiles, environment numbers.
import { createServer } from 'node:net';

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** A TCP port that was free a moment ago on 127.0.0.1 (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** Nearest-rank percentile of unsorted samples (ms); 0 without samples. */
export function percentile(samples: number[], p: number): number {
  if (!samples.length) return 0;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

export function envInt(name: string, fallback: number, min = 0): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min) {
    throw new Error(`${name} must be a whole number ≥ ${min}, got "${raw}"`);
  }
  return Number(raw);
}

export function log(msg: string): void {
  process.stdout.write(`[resilience ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
}

/** Counts of each value (e.g. deliveries per Message-ID). */
export function tally<T>(items: Iterable<T>): Map<T, number> {
  const out = new Map<T, number>();
  for (const i of items) out.set(i, (out.get(i) ?? 0) + 1);
  return out;
}
