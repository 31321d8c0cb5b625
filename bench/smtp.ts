// The SMTP relay driven by 20 concurrent connections of 10 KB messages,
// next to a bare smtp-server that discards messages, driven by the same client in the same run.
//   npm run bench -- smtp [messages=3000] [connections=20] [rounds=4] [--peer postfix] [--cluster]
// Each round drives the bare sink, then the relay; the ratio is of the means over all rounds, and
// every round's own ratio is printed, since the bare sink alone swings by a third between runs.
// The relay does per message what the platform promises: AUTH'd session, the organization limits
// at MAIL FROM (Redis Lua), the raw message committed to PostgreSQL, then a Bull job.
// With --peer postfix the same client and load go to a private Postfix instance (durable queue,
// discard(8) delivery; see support/postfix-peer.ts) and to the whole platform: the relay accepting
// and the worker delivering every message to a counting SMTP sink. Each round drives Postfix, then
// the platform; both report the accept rate and the end-to-end rate (first send to the last
// message delivered: Postfix's queue empty, the sink holding all of them), and CPU per message.
// With --cluster the apps run on a three-master Redis Cluster started on loopback for the run.
import { ChildProcess, fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import nodemailer from 'nodemailer';
import { Client } from 'pg';
import {
  benchCluster,
  admin,
  backendsCpu,
  backendsCpuSince,
  benchDatabase,
  benchEnv,
  benchKey,
  fmt,
  freePort,
  httpReady,
  liftOrgLimits,
  processCpuMs,
  ROOT,
  startApp,
  stop,
} from './support/harness';
import { postfixUnavailable, startPostfix } from './support/postfix-peer';
import { startSink } from './support/sink';

const { values: flags, positionals } = parseArgs({
  options: { peer: { type: 'string' }, cluster: { type: 'boolean' } },
  allowPositionals: true,
});
const total = Number(positionals[0] || 3000);
const connections = Number(positionals[1] || 20);
const rounds = Math.max(1, Number(positionals[2] || 4));
const BODY = 'x'.repeat(10 * 1024);

function portOpen(port: number): Promise<boolean> {
  return new Promise((done) => {
    const s = connect({ host: '127.0.0.1', port }, () => {
      s.destroy();
      done(true);
    });
    s.on('error', () => done(false));
  });
}

interface Run {
  perSecond: number;
  p50: number;
  p99: number;
}

/**
 * CPU per message of the relay process and of its PostgreSQL backends over one run: load-
 * independent figures (the 2-core machine's wall-clock ratios move with everyone else's work).
 */
async function withCpu(
  relayPid: number,
  db: Client,
  run: () => Promise<Run>,
  count: number,
): Promise<Run & { relayCpu: number; pgCpu: number }> {
  const query = async (sql: string) => (await db.query<{ pid: number }>(sql)).rows;
  const pg0 = await backendsCpu(query);
  const relay0 = processCpuMs(relayPid);
  const r = await run();
  const relayCpu = (processCpuMs(relayPid) - relay0) / count;
  const pg = await backendsCpuSince(query, pg0);
  return { ...r, relayCpu, pgCpu: pg / count };
}

/** Sends `count` messages keeping `connections` in flight; pooled or one connection per message. */
async function drive(port: number, count: number, pooled: boolean, pass?: string): Promise<Run> {
  const options = {
    host: '127.0.0.1',
    port,
    secure: false,
    ignoreTLS: true,
    auth: pass ? { user: 'bench', pass } : undefined,
  };
  const pool = pooled
    ? nodemailer.createTransport({
        ...options,
        pool: true,
        maxConnections: connections,
        maxMessages: Infinity,
      })
    : null;
  const latencies: number[] = [];
  let next = 0;
  const started = process.hrtime.bigint();
  async function lane(): Promise<void> {
    while (next < count) {
      const i = next++;
      const t = pool ?? nodemailer.createTransport(options);
      const t0 = process.hrtime.bigint();
      await t.sendMail({
        from: 'bench@acme.test',
        to: `rcpt${i}@example.test`,
        subject: `bench ${i}`,
        text: BODY,
      });
      latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
      if (!pool) t.close();
    }
  }
  await Promise.all(Array.from({ length: connections }, lane));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  pool?.close();
  latencies.sort((a, b) => a - b);
  const q = (p: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))];
  return { perSecond: count / seconds, p50: q(0.5), p99: q(0.99) };
}

/** A bench database with an organization (limits lifted) and a relay key; the apps' environment. */
async function platform(
  relayPort: number,
  extra: Record<string, string> = {},
): Promise<{ dbUrl: string; env: NodeJS.ProcessEnv; key: string }> {
  const dbUrl = await benchDatabase('mp_bench_smtp');
  const env = benchEnv(dbUrl, {
    SMTP_PORT: String(relayPort),
    INBOUND_SMTP_PORT: String(await freePort()),
    ...extra,
  });
  admin(env, ['migrate']);
  const org = admin(env, ['create-org', '--name', 'smtp bench', '--plan', 'enterprise']) as {
    organization: { id: string };
  };
  const id = org.organization.id;
  liftOrgLimits(env, id);
  return { dbUrl, env, key: benchKey(env, id, 'relay', 'messages:send') };
}

async function main(): Promise<void> {
  // BENCH_SMTP_PORT pins the relay's port; by default the kernel picks a free one.
  const relayPort = Number(process.env.BENCH_SMTP_PORT) || (await freePort());
  const { dbUrl, env, key } = await platform(relayPort);

  const sink = fork(resolve(ROOT, 'dist/bench/bench/support/sink-process.js'), [], {
    stdio: 'inherit',
  });
  const sinkPort = await new Promise<number>((done) =>
    sink.once('message', (m: { port: number }) => done(m.port)),
  );
  const relay = await startApp('smtp-relay', env, () => portOpen(relayPort));
  const db = new Client({ connectionString: dbUrl });
  await db.connect();
  const relayRun = () => withCpu(relay.pid!, db, () => drive(relayPort, total, true, key), total);
  try {
    await drive(sinkPort, 200, true);
    await drive(relayPort, 200, true, key);
    const bareRuns: Run[] = [];
    const oursRuns: (Run & { relayCpu: number; pgCpu: number })[] = [];
    let sinkCpu = 0;
    for (let i = 0; i < rounds; i++) {
      const sink0 = processCpuMs(sink.pid!);
      bareRuns.push(await drive(sinkPort, total, true));
      sinkCpu += (processCpuMs(sink.pid!) - sink0) / total / rounds;
      oursRuns.push(await relayRun());
    }
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const bare = mean(bareRuns.map((r) => r.perSecond));
    const ours = mean(oursRuns.map((r) => r.perSecond));
    const fresh = Math.min(400, total);
    const bareFresh = await drive(sinkPort, fresh, false);
    const oursFresh = await drive(relayPort, fresh, false, key);
    const line = (name: string, r: Run[]) =>
      `${name} ${fmt(r.reduce((a, b) => a + b.perSecond, 0) / r.length)} msgs/s  p50 ${fmt(
        r.reduce((a, b) => a + b.p50, 0) / r.length,
        1,
      )} ms  p99 ${fmt(r.reduce((a, b) => a + b.p99, 0) / r.length, 1)} ms`;
    process.stdout.write(
      [
        `smtp: ${connections} connections, 10 KB messages, ${total} per run, ${rounds} rounds of sink then relay`,
        line('baseline  bare smtp-server sink (discards), pooled     ', bareRuns),
        line('ours      relay (AUTH, limits, commit, enqueue), pooled', oursRuns),
        `ratio     ${fmt(ours / bare, 2)} (target >= 0.50); per round ${oursRuns
          .map((r, i) => fmt(r.perSecond / bareRuns[i].perSecond, 2))
          .join(' / ')}`,
        `relay CPU ${fmt(mean(oursRuns.map((r) => r.relayCpu)), 3)} ms/msg, its PostgreSQL backends ${fmt(
          mean(oursRuns.map((r) => r.pgCpu)),
          3,
        )} ms/msg; the bare sink ${fmt(sinkCpu, 3)} ms/msg (load ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')})`,
        `one connection per message (${fresh} messages; smtp-server greets after a fixed 100 ms):`,
        line('baseline  bare sink, new connection each', [bareFresh]),
        line('ours      relay, new connection each    ', [oursFresh]),
        `ratio     ${fmt(oursFresh.perSecond / bareFresh.perSecond, 2)}`,
      ].join('\n') + '\n',
    );
  } finally {
    await db.end();
    await stop(relay);
    sink.send('stop');
  }
}

/** Polls `done` every 20 ms until it holds; throws after ten minutes, naming `what`. */
async function until(done: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 600_000;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ten minutes`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

interface PeerRun extends Run {
  /** Messages per second from the first send until the last delivery. */
  endToEnd: number;
}

/** Drives `port` with `total` messages and waits for `delivered`; rates of both. */
async function endToEnd(
  port: number,
  delivered: () => boolean | Promise<boolean>,
  what: string,
  pass?: string,
): Promise<PeerRun> {
  const t0 = process.hrtime.bigint();
  const run = await drive(port, total, true, pass);
  await until(delivered, what);
  return { ...run, endToEnd: total / (Number(process.hrtime.bigint() - t0) / 1e9) };
}

/** --peer postfix: a private Postfix instance next to the relay and the worker. */
async function peerMain(): Promise<void> {
  const postfix = await startPostfix();
  const sink = await startSink();
  const relayPort = Number(process.env.BENCH_SMTP_PORT) || (await freePort());
  const healthPort = await freePort();
  const { dbUrl, env, key } = await platform(relayPort, {
    SMTP_OUTBOUND_URL: `smtp://127.0.0.1:${sink.port}`,
    WORKER_HEALTH_PORT: String(healthPort),
  });
  // Each app in a session of its own, as deployed services run; the Postfix master starts its own.
  const apps: ChildProcess[] = [];
  process.once('exit', () => apps.forEach((app) => app.kill('SIGKILL')));
  const db = new Client({ connectionString: dbUrl });
  try {
    apps.push(await startApp('smtp-relay', env, () => portOpen(relayPort), { ownSession: true }));
    const ready = () => httpReady(`http://127.0.0.1:${healthPort}/health`);
    apps.push(await startApp('worker', env, ready, { ownSession: true }));
    const [relay, worker] = apps;
    await db.connect();
    const query = async (sql: string) => (await db.query<{ pid: number }>(sql)).rows;
    const postfixRun = () =>
      endToEnd(postfix.port, () => postfix.queued() === 0, 'the Postfix queue emptying');
    const oursRun = async () => {
      const before = await sink.count();
      const done = async () => (await sink.count()) - before >= total;
      return endToEnd(relayPort, done, `the sink receiving ${total} messages`, key);
    };
    // Warm-up: Postfix spawns its daemons, the relay and the worker compile their hot paths.
    const warm = Math.min(200, total);
    await drive(postfix.port, warm, true);
    await until(() => postfix.queued() === 0, 'the Postfix queue emptying');
    const warmed = await sink.count();
    await drive(relayPort, warm, true, key);
    await until(async () => (await sink.count()) - warmed >= warm, 'the warm-up deliveries');
    const peerRuns: (PeerRun & { cpu: number })[] = [];
    const oursRuns: (PeerRun & { relayCpu: number; workerCpu: number; pgCpu: number })[] = [];
    for (let i = 0; i < rounds; i++) {
      const p0 = postfix.cpuMs();
      const p = await postfixRun();
      peerRuns.push({ ...p, cpu: (postfix.cpuMs() - p0) / total });
      const pg0 = await backendsCpu(query);
      const relay0 = processCpuMs(relay.pid!);
      const worker0 = processCpuMs(worker.pid!);
      const o = await oursRun();
      oursRuns.push({
        ...o,
        relayCpu: (processCpuMs(relay.pid!) - relay0) / total,
        workerCpu: (processCpuMs(worker.pid!) - worker0) / total,
        pgCpu: (await backendsCpuSince(query, pg0)) / total,
      });
    }
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const line = (name: string, r: PeerRun[]) =>
      `${name.padEnd(56)} accepted ${fmt(mean(r.map((x) => x.perSecond)))} msgs/s  p50 ${fmt(
        mean(r.map((x) => x.p50)),
        1,
      )} ms  p99 ${fmt(mean(r.map((x) => x.p99)), 1)} ms;  end to end ${fmt(
        mean(r.map((x) => x.endToEnd)),
      )} msgs/s`;
    const ratios = (f: (r: PeerRun) => number, target = '') =>
      `${fmt(mean(oursRuns.map(f)) / mean(peerRuns.map(f)), 2)}${target}; per round ${oursRuns
        .map((r, i) => fmt(f(r) / f(peerRuns[i]), 2))
        .join(' / ')}`;
    const [relayCpu, workerCpu, pgCpu] = [
      mean(oursRuns.map((r) => r.relayCpu)),
      mean(oursRuns.map((r) => r.workerCpu)),
      mean(oursRuns.map((r) => r.pgCpu)),
    ];
    const out = [
      `smtp --peer postfix: ${connections} connections, 10 KB messages, ${total} per run, ${rounds} rounds of Postfix then the platform`,
      line(`peer      Postfix ${postfix.version} (smtpd, queue, discard), pooled`, peerRuns),
      line('ours      relay + worker into the SMTP sink, pooled', oursRuns),
      `ratio     (platform end to end / Postfix end to end) ${ratios((r) => r.endToEnd, ' (target >= 1.5)')}`,
      `accepted  (platform / Postfix) ${ratios((r) => r.perSecond)}`,
      `CPU       ms/msg: relay ${fmt(relayCpu, 3)}, worker ${fmt(workerCpu, 3)}, their PostgreSQL backends ${fmt(
        pgCpu,
        3,
      )} (platform ${fmt(relayCpu + workerCpu + pgCpu, 3)}); Postfix's processes ${fmt(
        mean(peerRuns.map((r) => r.cpu)),
        3,
      )} (load ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')})`,
    ];
    const expected = warm + rounds * total;
    const [sent, received] = [postfix.delivered(), await sink.count()];
    if (sent !== expected) out.push(`WARNING   Postfix logged ${sent} of ${expected} as sent`);
    if (received !== expected) out.push(`WARNING   the sink received ${received} of ${expected}`);
    process.stdout.write(out.join('\n') + '\n');
  } finally {
    await db.end().catch(() => undefined);
    await Promise.all(apps.map((app) => stop(app)));
    sink.child.send('stop');
    postfix.stop();
  }
}

async function start(): Promise<void> {
  if (flags.peer !== undefined) {
    const missing =
      flags.peer === 'postfix'
        ? postfixUnavailable()
        : `--peer ${flags.peer}: the one peer is postfix`;
    if (missing) {
      process.stderr.write(`smtp --peer: ${missing}\n`);
      process.exit(1);
    }
  }
  // --cluster: the apps on a three-master Redis Cluster started for the run (benchEnv reads it).
  const cluster = flags.cluster ? await benchCluster() : undefined;
  if (cluster) process.env.BENCH_REDIS_URL = cluster.url;
  try {
    await (flags.peer === undefined ? main() : peerMain());
  } finally {
    await cluster?.stop();
  }
}

start().then(
  () => process.exit(0),
  (err: Error) => {
    process.stderr.write(`bench failed: ${err.stack}\n`);
    process.exit(1);
  },
);
