// npm run bench -- webhooks [deliveries=5000] [rounds=3]
//
// Deliveries per second from the webhook dispatcher (NOTIFY wake-up → batched claim → sign → undici
// POST → attempt recorded) into a local node:http receiver, next to raw undici POSTs of the same bodies
// to the same receiver, with the same concurrency, in the same run.
//   baseline  raw undici POSTs (keep-alive Agent), WEBHOOK_CONCURRENCY in flight
//   ours      deliveries already stored and announced while the dispatcher was paused, from its
//             resume until all are recorded as delivered in PostgreSQL
//   ours-e2e  emit() (store + notify) and delivery together, from the first emit to the last record
// Environment: BENCH_DATABASE_URL (default the local PostgreSQL, database mp_bench_webhooks),
// BENCH_REDIS_URL (default redis://127.0.0.1:6379/12), WEBHOOK_CONCURRENCY (default 50).
import { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { Agent } from 'undici';
import { DataSource } from 'typeorm';
import {
  dataSourceOptions,
  JsonLogger,
  loadConfig,
  runMigrations,
  signatureHeader,
  WebhookEndpointService,
  WebhookEvents,
} from '@app/domain';
import { WebhookDispatcher } from '../apps/worker/src/webhooks/webhook-dispatcher.service';
import { WorkerModule } from '../apps/worker/src/worker.module';

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
function cpuMsPer(since: NodeJS.CpuUsage, n: number): string {
  const used = process.cpuUsage(since);
  return ((used.user + used.system) / 1000 / n).toFixed(3);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const databaseUrl =
    process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/mp_bench_webhooks';
  process.env.DATABASE_URL = databaseUrl;
  process.env.REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379/12';
  process.env.ENCRYPTION_KEY ??= Buffer.alloc(32, 7).toString('base64');
  process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS = 'true';
  process.env.BULL_PREFIX = `bench-webhooks-${process.pid}`;
  process.env.LOG_LEVEL ??= 'warn';
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
  const events = ctx.get(WebhookEvents, { strict: false });
  const endpoints = ctx.get(WebhookEndpointService, { strict: false });

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
  const emitAll = (count: number) =>
    pool(
      Array.from({ length: count }, (_, i) => i),
      concurrency,
      (i) => events.emit(org.id, 'contact.created', data(i)),
    );

  // This machine's PostgreSQL may run without autovacuum: start each run from a vacuumed table.
  const vacuum = () => ds.query('VACUUM (ANALYZE) webhook_deliveries, webhook_attempts');
  await vacuum();
  // Warm-up: connections, JIT.
  await emitAll(200);
  await untilDelivered(200);

  const baseline: number[] = [];
  const ours: number[] = [];
  const ourEndToEnd: number[] = [];
  const agent = new Agent({ keepAliveTimeout: 4000 });
  for (let round = 0; round < ROUNDS; round++) {
    // Baseline: the same envelope bodies and headers, POSTed straight to the receiver.
    const bodies = Array.from({ length: N }, (_, i) => {
      const body = JSON.stringify({
        delivery_id: randomUUID(),
        type: 'contact.created',
        timestamp: new Date().toISOString(),
        data: data(i),
      });
      return body;
    });
    let cpu = process.cpuUsage();
    let t0 = process.hrtime.bigint();
    await pool(bodies, concurrency, async (body) => {
      const res = await agent.request({
        origin: `http://127.0.0.1:${port}`,
        path: '/hook',
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          'X-Webhook-Signature': signatureHeader(secret, Math.floor(Date.now() / 1000), body),
          'X-Webhook-Delivery-Id': JSON.parse(body).delivery_id,
          'X-Webhook-Event': 'contact.created',
        },
        body,
      });
      await res.body.text();
    });
    baseline.push(N / (Number(process.hrtime.bigint() - t0) / 1e9));
    const cpuBaseline = cpuMsPer(cpu, N);

    // Ours: N deliveries stored and announced while the dispatcher is paused, then drained.
    const start = await deliveredCount();
    dispatcher.pause();
    await emitAll(N);
    // The last notifications arrive on the listening connection shortly after the commits.
    while (dispatcher.backlog < N) await new Promise((r) => setTimeout(r, 10));
    cpu = process.cpuUsage();
    t0 = process.hrtime.bigint();
    dispatcher.resume();
    await untilDelivered(start + N);
    ours.push(N / (Number(process.hrtime.bigint() - t0) / 1e9));
    const cpuOurs = cpuMsPer(cpu, N);

    // Ours end to end: emit and deliver together.
    const start2 = await deliveredCount();
    t0 = process.hrtime.bigint();
    await emitAll(N);
    await untilDelivered(start2 + N);
    ourEndToEnd.push(N / (Number(process.hrtime.bigint() - t0) / 1e9));
    process.stderr.write(
      `round ${round + 1}: baseline ${baseline[round].toFixed(0)}/s (${cpuBaseline} ms CPU each), ` +
        `ours ${ours[round].toFixed(0)}/s (${cpuOurs} ms CPU each), ours-e2e ${ourEndToEnd[round].toFixed(0)}/s\n`,
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
