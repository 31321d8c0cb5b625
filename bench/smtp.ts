// The SMTP relay driven by 20 concurrent connections of 10 KB messages,
// next to a bare smtp-server that discards messages, driven by the same client in the same run.
//   npm run bench -- smtp [messages=3000] [connections=20] [rounds=4]
// Each round drives the bare sink, then the relay; the ratio is of the means over all rounds, and
// every round's own ratio is printed, since the bare sink alone swings by a third between runs.
// The relay does per message what the platform promises: AUTH'd session, the organization limits
// at MAIL FROM (Redis Lua), the raw message committed to PostgreSQL, then a Bull job.
import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { resolve } from 'node:path';
import nodemailer from 'nodemailer';
import { Client } from 'pg';
import {
  admin,
  backendsCpu,
  backendsCpuSince,
  benchDatabase,
  benchEnv,
  benchKey,
  fmt,
  freePort,
  liftOrgLimits,
  processCpuMs,
  ROOT,
  startApp,
  stop,
} from './support/harness';

const total = Number(process.argv[2] || 3000);
const connections = Number(process.argv[3] || 20);
const rounds = Math.max(1, Number(process.argv[4] || 4));
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

async function main(): Promise<void> {
  // BENCH_SMTP_PORT pins the relay's port; by default the kernel picks a free one.
  const relayPort = Number(process.env.BENCH_SMTP_PORT) || (await freePort());
  const dbUrl = await benchDatabase('mp_bench_smtp');
  const env = benchEnv(dbUrl, {
    SMTP_PORT: String(relayPort),
    INBOUND_SMTP_PORT: String(await freePort()),
  });
  admin(env, ['migrate']);
  const org = admin(env, ['create-org', '--name', 'smtp bench', '--plan', 'enterprise']) as {
    organization: { id: string };
  };
  const id = org.organization.id;
  liftOrgLimits(env, id);
  const key = benchKey(env, id, 'relay', 'messages:send');

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

main().then(
  () => process.exit(0),
  (err: Error) => {
    process.stderr.write(`bench failed: ${err.stack}\n`);
    process.exit(1);
  },
);
