// npm run bench -- webhooks [deliveries=5000] [rounds=3]
//
// Deliveries per second from the webhook dispatcher (NOTIFY wake-up → batched claim → sign → undici
// POST → attempt recorded) into a local node:http receiver, next to raw undici POSTs of the same bodies
// to the same receiver, with the same concurrency, in the same run.
//   baseline  raw undici POSTs (keep-alive Agent), WEBHOOK_CONCURRENCY in flight
//   ours      deliveries already stored and announced while the dispatcher was paused, from its
//             resume until all are recorded as delivered in PostgreSQL
//   ours-e2e  Events.emit + wake and delivery together, from the first emit to the last record
// Each round also prints the CPU time per request of this process, of the receiver and of this
// database's PostgreSQL backends (Linux /proc), and the commits per request: on a machine shared
// with other work the throughput swings with the load, the CPU per request much less.
// Both paths and the receiver are warmed up (untimed) before the first round.
// Environment: BENCH_DATABASE_URL (default the local PostgreSQL, database mp_bench_webhooks),
// BENCH_REDIS_URL (default redis://127.0.0.1:6379/12), WEBHOOK_CONCURRENCY (default 50),
// WEBHOOK_ENDPOINT_CONCURRENCY (default WEBHOOK_CONCURRENCY: the one receiver gets as many
// requests in flight as the baseline),
// BENCH_PROFILE_DIR (V8 CPU profiles of the first round's two measured phases).
import { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { Agent } from 'undici';
import { DataSource } from 'typeorm';
import {
  dataSourceOptions,
  Events,
  JsonLogger,
  loadConfig,
  runMigrations,
  signatureHeader,
  WebhookDispatcher,
  WebhookEndpointService,
  WebhookQueueSweeper,
} from '@app/domain';
import { WorkerModule } from '../apps/worker/src/worker.module';
import { backendsCpu, backendsCpuSince, median, processCpuMs } from './support/harness';

const N = Number(process.argv[2] ?? 5000);
const ROUNDS = Number(process.argv[3] ?? 3);

const RECEIVER = `
const http = require('node:http');
const server = http.createServer((req, res) => {
  req.on('data', () => {});
  req.on('end', () => res.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok'));
});
process.on('message', (m) => {
  if (m.stop) { server.closeAllConnections(); server.close(() => process.exit(0)); }
});
server.keepAliveTimeout = 5000;
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
`;

function startReceiver(): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, ['-e', RECEIVER], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve) =>
    child.once('message', (m: { port: number }) => resolve({ child, port: m.port })),
  );
}

/** A fresh database per run, so every run starts from the same empty, current schema. */
async function recreateDatabase(url: string): Promise<void> {
  const name = new URL(url).pathname.slice(1);
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await client.query(`CREATE DATABASE "${name}"`);
  await client.end();
}

async function pool<T>(items: T[], concurrency: number, fn: (item: T) => Promise<unknown>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) await fn(items[next++]);
    }),
  );
}

/** CPU time of this process (client, or worker) per request since `since`. */
function cpuMsPer(since: NodeJS.CpuUsage, n: number): number {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000 / n;
}

/**
 * BENCH_PROFILE_DIR=<dir>: a V8 CPU profile of each measured phase of the first round
 * (baseline.cpuprofile, ours.cpuprofile), so the two can be compared function by function.
 */
const PROFILE_DIR = process.env.BENCH_PROFILE_DIR;
const inspector = PROFILE_DIR ? new Session() : undefined;
const post = (method: string) =>
  new Promise<unknown>((resolve, reject) =>
    inspector!.post(method, (err, res) => (err ? reject(err) : resolve(res))),
  );
async function profileStart(round: number): Promise<void> {
  if (!inspector || round > 0) return;
  await post('Profiler.enable');
  await post('Profiler.start');
}
async function profileStop(round: number, name: string): Promise<void> {
  if (!inspector || round > 0) return;
  const { profile } = (await post('Profiler.stop')) as { profile: unknown };
  writeFileSync(join(PROFILE_DIR!, `${name}.cpuprofile`), JSON.stringify(profile));
}

/**
 * Counts the dispatcher's claim statements (woken ids, an endpoint's own) and record statements,
 * by wrapping those methods of its queue sweeper.
 */
function countStatements(queue: WebhookQueueSweeper): { claims: number; records: number } {
  const counts = { claims: 0, records: 0 };
  const claimByIds = queue.claimByIds.bind(queue);
  const claimForEndpoint = queue.claimForEndpoint.bind(queue);
  const finishAttempts = queue.finishAttempts.bind(queue);
  queue.claimByIds = (...args) => (counts.claims++, claimByIds(...args));
  queue.claimForEndpoint = (...args) => (counts.claims++, claimForEndpoint(...args));
  queue.finishAttempts = (...args) => (counts.records++, finishAttempts(...args));
  return counts;
}

async function main(): Promise<void> {
  const databaseUrl =
    process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/mp_bench_webhooks';
  process.env.DATABASE_URL = databaseUrl;
  process.env.REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379/12';
  process.env.ENCRYPTION_KEY ??= Buffer.alloc(32, 7).toString('base64');
  process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS = 'true';
  process.env.WEBHOOK_ENDPOINT_CONCURRENCY ??= process.env.WEBHOOK_CONCURRENCY ?? '50';
  process.env.BULL_PREFIX = `bench-webhooks-${process.pid}`;
  process.env.LOG_LEVEL ??= 'warn';
  inspector?.connect();
  const config = loadConfig();
  const concurrency = config.webhookConcurrency;

  await recreateDatabase(databaseUrl);
  const migrator = new DataSource(dataSourceOptions(databaseUrl, {}, 2));
  await migrator.initialize();
  await runMigrations(migrator);
  await migrator.destroy();

  const { child, port } = await startReceiver();
  const url = `http://127.0.0.1:${port}/hook`;
  const ctx: INestApplicationContext = await NestFactory.createApplicationContext(WorkerModule, {
    logger: new JsonLogger('bench', 'warn'),
  });
  const ds = ctx.get(DataSource);
  const dispatcher = ctx.get(WebhookDispatcher, { strict: false });
  const events = ctx.get(Events, { strict: false });
  const endpoints = ctx.get(WebhookEndpointService, { strict: false });
  const statements = countStatements(ctx.get(WebhookQueueSweeper, { strict: false }));

  const [org] = await ds.query(
    `INSERT INTO organizations (name, plan) VALUES ('webhook bench', 'enterprise') RETURNING id`,
  );
  const { view, secret } = await endpoints.create(org.id, {
    url,
    events: ['contact.created'],
    timeoutSeconds: 30,
  });
  const endpointId = view.endpoint.id;
  const data = (i: number) => ({ contactId: randomUUID(), email: `c${i}@example.com`, i });

  const deliveredCount = async (): Promise<number> =>
    (
      await ds.query(
        `SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_endpoint_id = $1 AND status = 'delivered'`,
        [endpointId],
      )
    )[0].n;
  const untilDelivered = async (n: number) => {
    while ((await deliveredCount()) < n) await new Promise((r) => setTimeout(r, 50));
  };
  /**
   * Waits for this process's dispatcher to have recorded `n` more outcomes: an in-memory counter
   * that moves only once an outcome's durable statement has committed, so the wait does not load
   * the database. Confirm them in PostgreSQL with `untilDelivered` after the clock is stopped.
   */
  const untilRecorded = async (recordedBefore: number, n: number) => {
    while (dispatcher.attemptsRecorded < recordedBefore + n)
      await new Promise((r) => setTimeout(r, 2));
  };
  const query = (sql: string): Promise<{ pid: number }[]> => ds.query(sql);
  /** CPU of this process, the receiver and this database's PostgreSQL backends. */
  const cpuSnapshot = async () => {
    const pg = await backendsCpu(query);
    const [db] = (await ds.query(
      `SELECT xact_commit::int AS commits FROM pg_stat_database WHERE datname = current_database()`,
    )) as { commits: number }[];
    return { node: process.cpuUsage(), receiver: processCpuMs(child.pid!), pg, db };
  };
  type CpuSnapshot = Awaited<ReturnType<typeof cpuSnapshot>>;
  /** Milliseconds of CPU per request since `since`: this process, the receiver, PostgreSQL. */
  const cpuPer = async (since: CpuSnapshot, n: number) => {
    const node = cpuMsPer(since.node, n);
    const receiver = (processCpuMs(child.pid!) - since.receiver) / n;
    const pgMs = await backendsCpuSince(query, since.pg);
    // Statistics reach pg_stat_database up to a second late: an approximate figure.
    const [db] = (await ds.query(
      `SELECT xact_commit::int - $1 AS commits FROM pg_stat_database WHERE datname = current_database()`,
      [since.db.commits],
    )) as { commits: number }[];
    return {
      node,
      receiver,
      pg: pgMs / n,
      total: node + receiver + pgMs / n,
      commits: db.commits / n,
    };
  };
  const fmtCpu = (c: Awaited<ReturnType<typeof cpuPer>>) =>
    `${c.total.toFixed(3)} ms CPU each = ${c.node.toFixed(3)} node + ${c.receiver.toFixed(3)} receiver + ` +
    `${c.pg.toFixed(3)} pg; ${c.commits.toFixed(3)} commits each`;
  const emitAll = (count: number) =>
    pool(
      Array.from({ length: count }, (_, i) => i),
      concurrency,
      async (i) => {
        // One event per change, as a producer raises it: stored, then the dispatcher woken.
        await events.emit(ds.manager, org.id, [{ type: 'contact.created', data: data(i) }]);
        events.wake();
      },
    );

  // A PostgreSQL without autovacuum would carry dead rows over: start each run from a vacuumed table.
  const vacuum = () => ds.query('VACUUM (ANALYZE) webhook_deliveries, webhook_attempts');
  await vacuum();
  const agent = new Agent({ keepAliveTimeout: 4000 });
  const bodiesOf = (count: number) =>
    Array.from({ length: count }, (_, i) =>
      JSON.stringify({
        delivery_id: randomUUID(),
        type: 'contact.created',
        timestamp: new Date().toISOString(),
        data: data(i),
      }),
    );
  const post = async (body: string) => {
    const res = await agent.request({
      origin: `http://127.0.0.1:${port}`,
      path: '/hook',
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'X-Webhook-Signature': signatureHeader(secret, Math.floor(Date.now() / 1000), body),
        'X-Webhook-Delivery-Id': (JSON.parse(body) as { delivery_id: string }).delivery_id,
        'X-Webhook-Event': 'contact.created',
      },
      body,
    });
    await res.body.text();
  };

  // Warm-up of both paths and of the receiver (connections, JIT), untimed: without it the first
  // round's baseline runs against a cold receiver.
  const warm = Math.min(N, 2000);
  await pool(bodiesOf(warm), concurrency, post);
  await emitAll(warm);
  await untilDelivered(warm);

  const baseline: number[] = [];
  const ours: number[] = [];
  const ourEndToEnd: number[] = [];
  const cpuRatios: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    // Baseline: the same envelope bodies and headers, POSTed straight to the receiver.
    const bodies = bodiesOf(N);
    await profileStart(round);
    let cpu = await cpuSnapshot();
    let t0 = process.hrtime.bigint();
    await pool(bodies, concurrency, post);
    baseline.push(N / (Number(process.hrtime.bigint() - t0) / 1e9));
    const cpuBaseline = await cpuPer(cpu, N);
    await profileStop(round, 'baseline');

    // Ours: N deliveries stored and announced while the dispatcher is paused, then drained.
    const start = await deliveredCount();
    dispatcher.pause();
    await emitAll(N);
    // The last notifications arrive on the listening connection shortly after the commits.
    while (dispatcher.backlog < N) await new Promise((r) => setTimeout(r, 10));
    const recorded = dispatcher.attemptsRecorded;
    const statementsBefore = { ...statements };
    await profileStart(round);
    cpu = await cpuSnapshot();
    t0 = process.hrtime.bigint();
    dispatcher.resume();
    await untilRecorded(recorded, N);
    ours.push(N / (Number(process.hrtime.bigint() - t0) / 1e9));
    const cpuOurs = await cpuPer(cpu, N);
    // Outside the clock and the CPU figures: the count is a check, not part of delivering, and
    // the baseline has no such check.
    await untilDelivered(start + N);
    const perClaim = N / (statements.claims - statementsBefore.claims);
    const perRecord = N / (statements.records - statementsBefore.records);
    await profileStop(round, 'ours');
    cpuRatios.push(cpuBaseline.total / cpuOurs.total);

    // Ours end to end: emit and deliver together.
    const start2 = await deliveredCount();
    const recorded2 = dispatcher.attemptsRecorded;
    t0 = process.hrtime.bigint();
    await emitAll(N);
    await untilRecorded(recorded2, N);
    ourEndToEnd.push(N / (Number(process.hrtime.bigint() - t0) / 1e9));
    await untilDelivered(start2 + N);
    process.stderr.write(
      `round ${round + 1}: baseline ${baseline[round].toFixed(0)}/s (${fmtCpu(cpuBaseline)}), ` +
        `ours ${ours[round].toFixed(0)}/s (${fmtCpu(cpuOurs)}; ${perClaim.toFixed(0)} per claim, ${perRecord.toFixed(0)} per record statement), ours-e2e ${ourEndToEnd[round].toFixed(0)}/s, ` +
        `load ${loadavg()[0].toFixed(2)}\n`,
    );
  }

  const b = median(baseline);
  const o = median(ours);
  const e = median(ourEndToEnd);
  console.log(
    `deliveries per round: ${N}, concurrency: ${concurrency}, rounds: ${ROUNDS} (medians)`,
  );
  console.log(`baseline: ${b.toFixed(0)} raw undici POSTs/s`);
  console.log(`ours: ${o.toFixed(0)} deliveries/s (stored and announced, then dispatched)`);
  console.log(`ratio: ${(o / b).toFixed(2)}`);
  // Each round's pair ran under the same machine load; their ratios drift less than the medians.
  console.log(
    `ratio-paired: ${median(ours.map((v, i) => v / baseline[i])).toFixed(2)} (median of per-round ratios)`,
  );
  // CPU per request (this process + receiver + PostgreSQL backends) drifts least with the load.
  console.log(
    `cpu-ratio: ${median(cpuRatios).toFixed(2)} (baseline CPU per request / ours, median of rounds)`,
  );
  console.log(`ours-e2e: ${e.toFixed(0)} deliveries/s (emit + dispatch)`);
  console.log(`ratio-e2e: ${(e / b).toFixed(2)}`);

  await agent.close();
  await ds.query(`DELETE FROM organizations WHERE id = $1`, [org.id]);
  await ctx.close();
  child.send({ stop: true });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
