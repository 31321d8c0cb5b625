// npm run bench -- send
// Three figures of the email send path, each next to a baseline measured in the same run:
//  1. POST /api/v1/send accepted per second and p99 at 50 concurrent clients (per-IP limits lifted
//     for loopback by SEND_IP_ALLOWLIST), next to GET /health on the same server;
//  2. the organization limit script's checks per second next to a no-op EVALSHA on the same Redis;
//  3. the worker's deliveries per second into a local SMTP sink next to nodemailer's own pooled
//     sending of the same messages into the same sink, and the worker's with DKIM signing (From a
//     sending domain verified against a DNS server on loopback) next to the same run unsigned.
// Uses its own database (mp_bench_send on the local PostgreSQL) and Redis db 11 unless
// BENCH_DATABASE_URL / BENCH_REDIS_URL say otherwise; `--cluster` runs it on a three-master Redis
// Cluster started on loopback for the run.
import { INestApplication } from '@nestjs/common';
import { getQueueToken } from '@nestjs/bull';
import { Test } from '@nestjs/testing';
import type { Queue } from 'bull';
import { redisMasters, type RedisClient } from '@app/domain/redis/redis-client';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { randomBytes } from 'node:crypto';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { benchCluster, median, redisServerPids } from './support/harness';
import { startSink } from './support/sink';

const ADMIN_URL =
  process.env.BENCH_ADMIN_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const DB_NAME = process.env.BENCH_DATABASE_NAME || 'mp_bench_send';
const HTTP_SECONDS = Number(process.env.BENCH_HTTP_SECONDS || 5);
const HTTP_ROUNDS = Number(process.env.BENCH_HTTP_ROUNDS || 2);
const LIMIT_ROUNDS = Number(process.env.BENCH_LIMIT_ROUNDS || 12);
const DELIVERIES = Number(process.env.BENCH_DELIVERIES || 2000);
const DELIVERY_ROUNDS = Number(process.env.BENCH_DELIVERY_ROUNDS || 3);
const CONCURRENCY = 50;

function line(label: string, value: string): void {
  console.log(`${label.padEnd(44)} ${value}`);
}

async function freshDatabase(): Promise<string> {
  const admin = new Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${DB_NAME} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${DB_NAME}`);
  await admin.end();
  const u = new URL(ADMIN_URL);
  u.pathname = `/${DB_NAME}`;
  return u.toString();
}

interface CannonResult {
  requests: { average: number; total: number };
  latency: { p99: number; average: number };
  '2xx': number;
  non2xx: number;
  errors: number;
  duration: number;
}

/** autocannon in a child process, so load generation does not share the server's event loop. */
function cannon(
  url: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string },
): Promise<CannonResult> {
  const args = [
    require.resolve('autocannon/autocannon.js'),
    '-c',
    String(CONCURRENCY),
    '-d',
    String(HTTP_SECONDS),
    '-j',
  ];
  if (opts.method) args.push('-m', opts.method);
  for (const [k, v] of Object.entries(opts.headers ?? {})) args.push('-H', `${k}=${v}`);
  if (opts.body) args.push('-b', opts.body);
  args.push(url);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('exit', (code) =>
      code === 0
        ? resolve(JSON.parse(out) as CannonResult)
        : reject(new Error(`autocannon exited ${code}`)),
    );
  });
}

/** Runs `op` from `workers` concurrent loops for `seconds`; returns operations per second. */
async function loops(
  seconds: number,
  workers: number,
  op: () => Promise<unknown>,
): Promise<number> {
  const until = Date.now() + seconds * 1000;
  let done = 0;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (Date.now() < until) {
        await op();
        done++;
      }
    }),
  );
  return done / ((Date.now() - started) / 1000);
}

async function main(): Promise<void> {
  const sink = await startSink();
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { startDnsServer } =
    require('../test/support/dns-server') as typeof import('../test/support/dns-server');
  /* eslint-enable @typescript-eslint/no-require-imports */
  const dnsServer = await startDnsServer();
  const cluster = process.argv.includes('--cluster') ? await benchCluster() : undefined;
  Object.assign(process.env, {
    NODE_ENV: 'test',
    DATABASE_URL: process.env.BENCH_DATABASE_URL || (await freshDatabase()),
    REDIS_URL: cluster?.url ?? (process.env.BENCH_REDIS_URL || 'redis://127.0.0.1:6379/11'),
    BULL_PREFIX: `mp-bench-${randomBytes(3).toString('hex')}`,
    ENCRYPTION_KEY: process.env.ENCRYPTION_KEY || randomBytes(32).toString('base64'),
    LOG_LEVEL: 'warn',
    RUN_MIGRATIONS: 'true',
    DATA_DIR: join(tmpdir(), 'mp-bench-send'),
    SEND_IP_ALLOWLIST: '127.0.0.1,::1',
    SMTP_OUTBOUND_URL: `smtp://127.0.0.1:${sink.port}`,
    DNS_SERVERS: dnsServer.address,
    BOUNCE_DOMAIN: 'bounces.platform.bench',
  });
  // Loaded after the environment is set: config is read when the modules are compiled.
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { createTestApp } = require('../test/support/app') as typeof import('../test/support/app');
  const { createSession } =
    require('../test/support/session') as typeof import('../test/support/session');
  const domain = require('@app/domain') as typeof import('../libs/domain/src');
  const { WorkerModule } =
    require('../apps/worker/src/worker.module') as typeof import('../apps/worker/src/worker.module');
  /* eslint-enable @typescript-eslint/no-require-imports */

  const config = domain.loadConfig();
  const app: INestApplication = await createTestApp();
  await app.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  const s = await createSession(app, { plan: 'enterprise', perMinute: 1_000_000_000 });
  const unlimited = { perSecond: 1e9, perMinute: 1e9, perHour: 1e9, perDay: 1e9, perMonth: 1e9 };
  await app.get(domain.OrganizationService).setLimits(s.org.id, unlimited);
  const email = {
    from: 'Bench Sender <bench@sender.test>',
    to: 'reader@example.test',
    subject: 'Benchmark message',
    html: '<p>Hello from the benchmark. '.padEnd(2000, 'x') + '</p>',
    text: 'Hello from the benchmark.'.padEnd(1000, 'x'),
  };

  // The sending domain of the signed deliveries: its records published in the loopback DNS.
  const domains = app.get(domain.SendingDomainService);
  const created = await domains.create(s.org.id, { name: 'signed.bench.test' });
  for (const r of created.dnsRecords) {
    dnsServer.set(r.name, [
      r.type === 'CNAME' ? { type: 'CNAME', data: r.value } : { type: 'TXT', data: r.value },
    ]);
  }
  if ((await domains.verify(s.org.id, created.domain.id)).domain.status !== 'verified') {
    throw new Error('the bench sending domain did not verify');
  }
  const signedEmail = { ...email, from: 'Bench Sender <bench@signed.bench.test>' };

  console.log(
    `send bench: ${CONCURRENCY} concurrent clients, node ${process.version}; baseline and ours ` +
      'alternate in rounds so load from other processes hits both alike',
  );

  // 1. HTTP: the send API next to the cheapest route of the same server, alternating.
  const http = {
    health: 0,
    healthP99: [] as number[],
    send: 0,
    sendP99: [] as number[],
    failed: 0,
  };
  for (let round = 0; round < HTTP_ROUNDS; round++) {
    const h = await cannon(`${base}/health`, {});
    const r = await cannon(`${base}/api/v1/send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': s.apiKey },
      body: JSON.stringify(email),
    });
    http.health += h['2xx'];
    http.healthP99.push(h.latency.p99);
    http.send += r['2xx'];
    http.sendP99.push(r.latency.p99);
    http.failed += r.non2xx + r.errors;
  }
  const seconds = HTTP_ROUNDS * HTTP_SECONDS;
  const healthRate = http.health / seconds;
  const sendRate = http.send / seconds;
  line(
    'baseline GET /health req/s (p99 ms)',
    `${healthRate.toFixed(0)} (${median(http.healthP99)})`,
  );
  line(
    'ours POST /api/v1/send accepted/s (p99 ms)',
    `${sendRate.toFixed(0)} (${median(http.sendP99)})`,
  );
  line('ours POST /api/v1/send refused or failed', String(http.failed));
  line('ratio send/health', (sendRate / healthRate).toFixed(2));

  // 2. The limit script against a no-op EVALSHA: same connection, same concurrency, alternating
  // half-second rounds; the ratio is the median of the rounds' ratios.
  const redis = app.get<RedisClient>(domain.REDIS);
  const limiter = app.get(domain.SendingLimiter);
  // On a cluster the no-op is loaded on every master: a key-less EVALSHA goes to any of them.
  const loaded = await Promise.all(redisMasters(redis).map((m) => m.script('LOAD', 'return 1')));
  const noop = loaded[0] as string;
  const usage = { requests: 1, recipients: 1 };
  const check = () => limiter.consume(s.org.id, usage, { limits: unlimited });
  await loops(0.5, CONCURRENCY, check);
  const noopRates: number[] = [];
  const limitRates: number[] = [];
  for (let round = 0; round < LIMIT_ROUNDS; round++) {
    noopRates.push(await loops(0.5, CONCURRENCY, () => redis.evalsha(noop, 0)));
    limitRates.push(await loops(0.5, CONCURRENCY, check));
  }
  line('baseline no-op EVALSHA/s (median)', median(noopRates).toFixed(0));
  line('ours limit check-and-consume/s (median)', median(limitRates).toFixed(0));
  line(
    'ratio limit/no-op (median of rounds)',
    median(limitRates.map((l, i) => l / noopRates[i])).toFixed(2),
  );

  // 3. Delivery: nodemailer's pooled transport alone, then the worker, into the same sink.
  const ds = app.get(DataSource);
  const queue = app.get<Queue>(getQueueToken(domain.QUEUES.email));
  await queue.pause();
  await queue.obliterate({ force: true });
  // obliterate removes the queue's keys, its paused flag among them: pause again.
  await queue.pause();
  await ds.query(`DELETE FROM messages`);
  const worker = await Test.createTestingModule({ imports: [WorkerModule] }).compile();
  worker.useLogger(new domain.JsonLogger('bench-worker', 'warn'));
  await worker.init();
  const sender = app.get(domain.SendService);
  const nodemailerRates: number[] = [];
  const workerRates: number[] = [];
  // Node CPU (user + system, this process: the worker runs in it) per message of each side: the
  // load-independent part of the comparison (PostgreSQL, Redis and the sink are other processes).
  const nodemailerCpu: number[] = [];
  const workerCpu: number[] = [];
  const cpuMicros = (since: NodeJS.CpuUsage) => {
    const d = process.cpuUsage(since);
    return (d.user + d.system) / DELIVERIES;
  };
  const workerPgCpu: number[] = [];
  // Redis's CPU (the whole server, every master of a cluster: other clients of the same servers
  // count too) in 10 ms ticks.
  const redisPids = await redisServerPids(redis);
  const redisTicks = () => redisPids.reduce((sum, pid) => sum + procTicks(pid), 0);
  const procTicks = (pid: number, file = `/proc/${pid}/stat`): number => {
    try {
      const f = readFileSync(file, 'utf8').split(') ')[1].split(' ');
      return Number(f[11]) + Number(f[12]);
    } catch {
      return NaN;
    }
  };
  // CPU of this database's PostgreSQL backends (same machine), found by their process titles
  // and sampled while the worker runs: a backend that ends (pool idle timeout) keeps its last
  // figure. Ticks of 10 ms.
  const dbName = (await ds.query(`SELECT current_database() AS d`))[0].d as string;
  const backendTicks = new Map<number, number>();
  let scans = 0;
  const samplePg = (): void => {
    // The process list is scanned once a second (reading every title costs the bench's own
    // CPU, counted as the worker's); the known backends' figures every call.
    if (scans++ % 50 === 0) {
      for (const entry of readdirSync('/proc')) {
        if (!/^\d+$/.test(entry) || backendTicks.has(Number(entry))) continue;
        try {
          const title = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
          if (title.startsWith('postgres: ') && title.includes(` ${dbName} `)) {
            backendTicks.set(Number(entry), 0);
          }
        } catch {
          // gone already
        }
      }
    }
    for (const pid of backendTicks.keys()) {
      const t = procTicks(pid);
      if (t >= 0) backendTicks.set(pid, t);
    }
  };
  const pgTicks = (): number => {
    samplePg();
    return [...backendTicks.values()].reduce((a, b) => a + b, 0);
  };
  const workerRedisCpu: number[] = [];
  // This process's CPU on its main thread (the event loop), in ticks; process.cpuUsage counts
  // every thread (GC helpers, libuv pool) as well.
  const mainThreadTicks = () => procTicks(0, `/proc/self/task/${process.pid}/stat`);
  const workerMainCpu: number[] = [];
  const nodemailerMainCpu: number[] = [];
  const sinkCpu: number[] = [];
  const nodemailerSinkCpu: number[] = [];
  // BENCH_CPU_PROFILE=<dir>: a V8 CPU profile of each side's delivery phase (this process).
  const profileDir = process.env.BENCH_CPU_PROFILE;
  const inspector = profileDir ? new Session() : null;
  inspector?.connect();
  const post = (method: string, params?: object) =>
    new Promise<unknown>((res, rej) =>
      inspector!.post(method, params, (err, out) => (err ? rej(err) : res(out))),
    );
  const profile = async <T>(name: string, run: () => Promise<T>): Promise<T> => {
    if (!inspector) return run();
    await post('Profiler.enable');
    await post('Profiler.start');
    try {
      return await run();
    } finally {
      const { profile: p } = (await post('Profiler.stop')) as { profile: unknown };
      writeFileSync(join(profileDir!, `${name}.cpuprofile`), JSON.stringify(p));
    }
  };
  let received = 0;
  let delivered = 0;
  const signedRates: number[] = [];
  const signedCpu: number[] = [];
  const signedMainCpu: number[] = [];
  for (let round = 0; round < DELIVERY_ROUNDS; round++) {
    const transport = nodemailer.createTransport({
      pool: true,
      host: '127.0.0.1',
      port: sink.port,
      maxConnections: config.smtpOutboundPoolSize,
      maxMessages: 1000,
      ...domain.SMTP_TIMEOUTS,
    });
    let sent = 0;
    const s0 = procTicks(sink.child.pid!);
    const m0 = mainThreadTicks();
    const c0 = process.cpuUsage();
    const t0 = Date.now();
    await profile(`nodemailer-${round}`, () =>
      Promise.all(
        Array.from({ length: config.deliveryConcurrency }, async () => {
          while (sent < DELIVERIES) {
            sent++;
            await transport.sendMail({
              ...email,
              envelope: { from: 'bench@sender.test', to: ['reader@example.test'] },
            });
          }
        }),
      ),
    );
    nodemailerRates.push(DELIVERIES / ((Date.now() - t0) / 1000));
    nodemailerCpu.push(cpuMicros(c0));
    nodemailerMainCpu.push(((mainThreadTicks() - m0) * 10_000) / DELIVERIES);
    nodemailerSinkCpu.push(((procTicks(sink.child.pid!) - s0) * 10_000) / DELIVERIES);
    transport.close();

    // Messages are accepted while the queue is paused, then the worker drains them.
    // The worker on the same messages unsigned (From a domain that is not verified) and signed
    // (From the verified bench domain: one RSA-2048 DKIM signature each), in alternating order.
    for (const signed of round % 2 ? [true, false] : [false, true]) {
      for (let i = 0; i < DELIVERIES; i++)
        await sender.send(s.org.id, signed ? signedEmail : email);
      const before = await sink.count();
      const pg0 = pgTicks();
      const r0 = redisTicks();
      const s1 = procTicks(sink.child.pid!);
      const m1 = mainThreadTicks();
      const c1 = process.cpuUsage();
      const t1 = Date.now();
      await profile(`worker-${signed ? 'signed-' : ''}${round}`, async () => {
        await queue.resume();
        // Wait on the sink's counter (a message over IPC), then for the delivered status of every
        // message in the log: counting the messages table every 20 ms while the worker runs cost
        // PostgreSQL 5–20 ms a time on a 6,000-row table, taken from the worker's share of the CPU.
        while ((await sink.count()) - before < DELIVERIES) {
          samplePg();
          await new Promise((r) => setTimeout(r, 20));
        }
        for (;;) {
          const [{ n }] = await ds.query(
            `SELECT count(*)::int AS n FROM messages WHERE status = 'delivered'`,
          );
          if (n >= delivered + DELIVERIES) break;
          await new Promise((r) => setTimeout(r, 20));
        }
      });
      delivered += DELIVERIES;
      if (signed) {
        signedRates.push(DELIVERIES / ((Date.now() - t1) / 1000));
        signedCpu.push(cpuMicros(c1));
        signedMainCpu.push(((mainThreadTicks() - m1) * 10_000) / DELIVERIES);
        await queue.pause();
        received += (await sink.count()) - before;
        continue;
      }
      workerRates.push(DELIVERIES / ((Date.now() - t1) / 1000));
      workerCpu.push(cpuMicros(c1));
      workerMainCpu.push(((mainThreadTicks() - m1) * 10_000) / DELIVERIES);
      workerPgCpu.push(((pgTicks() - pg0) * 10_000) / DELIVERIES);
      workerRedisCpu.push(((redisTicks() - r0) * 10_000) / DELIVERIES);
      sinkCpu.push(((procTicks(sink.child.pid!) - s1) * 10_000) / DELIVERIES);
      await queue.pause();
      received += (await sink.count()) - before;
    }
  }
  const nm = median(nodemailerRates);
  const wk = median(workerRates);
  line(
    `baseline nodemailer pooled sendMail/s (${config.smtpOutboundPoolSize} conns)`,
    nm.toFixed(0),
  );
  line(`ours worker deliveries/s (${config.deliveryConcurrency} jobs)`, wk.toFixed(0));
  line('ratio worker/nodemailer (medians)', (wk / nm).toFixed(2));
  line('node CPU µs/message nodemailer (median)', median(nodemailerCpu).toFixed(0));
  line('node CPU µs/message worker (median)', median(workerCpu).toFixed(0));
  line('node main thread µs/message nodemailer', median(nodemailerMainCpu).toFixed(0));
  line('node main thread µs/message worker', median(workerMainCpu).toFixed(0));
  line('PostgreSQL CPU µs/message worker (median)', median(workerPgCpu).toFixed(0));
  line('Redis server CPU µs/message worker (median)', median(workerRedisCpu).toFixed(0));
  line('sink CPU µs/message nodemailer (median)', median(nodemailerSinkCpu).toFixed(0));
  line('sink CPU µs/message worker (median)', median(sinkCpu).toFixed(0));
  const sg = median(signedRates);
  line('ours worker deliveries/s, DKIM-signed', sg.toFixed(0));
  line('ratio signed/unsigned worker (medians)', (sg / wk).toFixed(2));
  line('ratio signed worker/nodemailer (medians)', (sg / nm).toFixed(2));
  line('node CPU µs/message worker signed (median)', median(signedCpu).toFixed(0));
  line('node main thread µs/message worker signed', median(signedMainCpu).toFixed(0));
  if (received !== 2 * DELIVERIES * DELIVERY_ROUNDS) {
    line('WARNING sink received', String(received));
  }
  line('delivery rounds x messages', `${DELIVERY_ROUNDS} x ${DELIVERIES} (each side)`);

  await worker.close();
  await app.close();
  await dnsServer.stop();
  await cluster?.stop();
  sink.child.send('stop');
}

main().then(
  () => process.exit(0),
  (err: Error) => {
    console.error(err);
    process.exit(1);
  },
);
