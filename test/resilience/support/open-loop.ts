// Open-loop traffic at a fixed rate: each operation is started on its schedule whether or not the
// earlier ones have answered, so a slow or stalled server shows up as latency and errors instead
// of quietly lowering the offered load (no coordinated omission).
import { percentile, sleep } from './util';

export interface OpOutcome {
  status: number;
  error?: string;
}

export interface Operation {
  route: string;
  /** Operations started per second. */
  rate: number;
  run: () => Promise<OpOutcome>;
}

export interface Sample {
  route: string;
  /** ms since the epoch when it was started / answered */
  startedAt: number;
  endedAt: number;
  ms: number;
  status: number;
  error?: string;
}

export interface OpenLoopResult {
  samples: Sample[];
  /** Operations not started because too many were already in flight (the server is stalled). */
  shed: number;
  /** How late the generator started operations against their schedule (p99, ms). */
  scheduleLagP99: number;
}

export async function openLoop(
  operations: Operation[],
  durationMs: number,
  opts: { maxInFlight?: number; onSample?: (s: Sample) => void } = {},
): Promise<OpenLoopResult> {
  const maxInFlight = opts.maxInFlight ?? 2000;
  const start = Date.now();
  const end = start + durationMs;
  const next = operations.map(() => start);
  const samples: Sample[] = [];
  const lags: number[] = [];
  const inFlight = new Set<Promise<void>>();
  let shed = 0;

  const fire = (op: Operation) => {
    const startedAt = Date.now();
    const t0 = performance.now();
    const p = op
      .run()
      .catch((err: Error): OpOutcome => ({ status: 0, error: err.message }))
      .then((out) => {
        const s: Sample = {
          route: op.route,
          startedAt,
          endedAt: Date.now(),
          ms: performance.now() - t0,
          status: out.status,
          error: out.error,
        };
        samples.push(s);
        opts.onSample?.(s);
      })
      .finally(() => inFlight.delete(p));
    inFlight.add(p);
  };

  for (;;) {
    const now = Date.now();
    if (now >= end) break;
    operations.forEach((op, i) => {
      if (op.rate <= 0) return;
      const interval = 1000 / op.rate;
      while (next[i] <= now && next[i] < end) {
        lags.push(now - next[i]);
        if (inFlight.size >= maxInFlight) shed++;
        else fire(op);
        next[i] += interval;
      }
    });
    const wake = Math.min(end, ...next.filter((_, i) => operations[i].rate > 0));
    await sleep(Math.max(1, Math.min(50, wake - Date.now())));
  }
  await Promise.all([...inFlight]);
  return { samples, shed, scheduleLagP99: percentile(lags, 99) };
}

export interface RouteStats {
  route: string;
  count: number;
  ok: number;
  errors: number;
  p50: number;
  p99: number;
  max: number;
  statuses: Record<string, number>;
}

/** Per-route counts and latency; `isOk` says which answers count as success. */
export function routeStats(
  samples: Sample[],
  isOk: (s: Sample) => boolean = (s) => s.status >= 200 && s.status < 300,
): RouteStats[] {
  const byRoute = new Map<string, Sample[]>();
  for (const s of samples) {
    const list = byRoute.get(s.route);
    if (list) list.push(s);
    else byRoute.set(s.route, [s]);
  }
  return [...byRoute.entries()].map(([route, list]) => {
    const statuses: Record<string, number> = {};
    for (const s of list) {
      const k = s.error ? s.error : String(s.status);
      statuses[k] = (statuses[k] ?? 0) + 1;
    }
    const ms = list.map((s) => s.ms);
    const ok = list.filter(isOk).length;
    return {
      route,
      count: list.length,
      ok,
      errors: list.length - ok,
      p50: percentile(ms, 50),
      p99: percentile(ms, 99),
      max: ms.reduce((a, b) => Math.max(a, b), 0),
      statuses,
    };
  });
}

export function statsTable(stats: RouteStats[]): string {
  const r = (n: number) => Math.round(n).toLocaleString('en-US');
  const lines = [
    '| Route | Requests | 2xx | Errors | p50 ms | p99 ms | max ms | Answers |',
    '|---|---:|---:|---:|---:|---:|---:|---|',
  ];
  for (const s of stats) {
    const answers = Object.entries(s.statuses)
      .map(([k, v]) => `${k}×${v}`)
      .join(', ');
    lines.push(
      `| ${s.route} | ${r(s.count)} | ${r(s.ok)} | ${r(s.errors)} | ${r(s.p50)} | ${r(s.p99)} | ${r(s.max)} | ${answers} |`,
    );
  }
  return lines.join('\n');
}
