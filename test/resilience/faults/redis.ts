// Fault: Redis killed and restarted (empty: no persistence) while sends are queued in it. Every
// send the API acknowledged with 202 must reach the sink exactly once; the sweeper re-queues the
// committed messages whose jobs Redis lost. Requests while Redis is down answer 503, never hang.
import type { Reporter } from '../support/context';
import type { Platform } from '../support/harness';
import { ApiClient } from '../support/api-client';
import { openLoop } from '../support/open-loop';
import { log, sleep } from '../support/util';
import { sendOne, settleLedger } from './sends';

export async function redisRestartWithSendsQueued(
  p: Platform,
  reporter: Reporter,
  opts = { rate: 40, seconds: 20, killAtSeconds: 8, downSeconds: 4 },
): Promise<void> {
  const name = 'Redis restart with sends queued';
  if (!p.ownsRedis) {
    reporter.record({
      section: 'fault',
      name,
      requests: 0,
      errors: 0,
      lost: 0,
      passed: false,
      skipped: true,
      notes: 'RESILIENCE_REDIS_URL points at a Redis the suite cannot restart',
    });
    return;
  }
  const org = await p.createOrg('Resilience redis');
  const http = new ApiClient(p.apiUrl, {}, 15_000).withKey(org.apiKey);
  const tag = Date.now();
  const acked: string[] = [];
  let n = 0;
  // A slow sink (300 ms a message, 5 pooled connections: ~16/s) keeps a backlog in the queue.
  p.sink.delayMs = 300;
  const timeline = (async () => {
    await sleep(opts.killAtSeconds * 1000);
    const backlog = await p.db.query<{ n: string }>(
      `SELECT count(*) AS n FROM messages WHERE organization_id = $1 AND status = 'queued'`,
      [org.id],
    );
    log(`${backlog.rows[0].n} sends queued: SIGKILL redis-server`);
    await p.killRedis();
    await sleep(opts.downSeconds * 1000);
    await p.startRedis();
    log('redis-server restarted (empty)');
    return Number(backlog.rows[0].n);
  })();
  const run = await openLoop(
    [
      {
        route: 'POST /api/v1/send',
        rate: opts.rate,
        run: async () => {
          const i = n++;
          const res = await sendOne(
            http,
            `r${i}.${tag}@resilience.example`,
            `Redis fault ${tag} #${i}`,
          );
          if (res.status === 202 && res.body?.data?.messageId) acked.push(res.body.data.messageId);
          return { status: res.status, error: res.error };
        },
      },
    ],
    opts.seconds * 1000,
  );
  const queuedAtKill = await timeline;
  p.sink.delayMs = 0;

  const settled = await settleLedger(p, acked, 4 * 60_000);
  const statuses = new Map<string, number>();
  for (const s of run.samples) {
    const k = s.error ?? String(s.status);
    statuses.set(k, (statuses.get(k) ?? 0) + 1);
  }
  const bad = run.samples.filter((s) => s.status !== 202 && s.status !== 503).length;
  const hangs = run.samples.filter((s) => s.error === 'timeout').length;
  // Messages committed without a 202 (the answer was lost or an error): delivered, not acknowledged.
  const committed = await p.db.query<{ n: string; open: string }>(
    `SELECT count(*) AS n, count(*) FILTER (WHERE status IN ('queued','deferred')) AS open
       FROM messages WHERE organization_id = $1`,
    [org.id],
  );
  const passed =
    queuedAtKill > 0 &&
    settled.missing === 0 &&
    settled.duplicated === 0 &&
    bad === 0 &&
    run.shed === 0 &&
    Number(committed.rows[0].open) === 0;
  reporter.record({
    section: 'fault',
    name,
    requests: run.samples.length,
    errors: bad + settled.duplicated + run.shed,
    lost: settled.missing,
    passed,
    notes:
      `${queuedAtKill} queued at the kill; answers ${[...statuses].map(([k, v]) => `${k}×${v}`).join(', ')}` +
      (hangs ? ` (${hangs} hung > 15 s)` : '') +
      `; ${settled.acknowledged} acknowledged → ${settled.deliveredOnce} delivered once, ` +
      `${settled.missing} missing, ${settled.duplicated} twice; ${committed.rows[0].n} committed, ` +
      `${committed.rows[0].open} still open`,
  });
}
