// npm run bench -- channels [messages=3000] [rounds=2] [capped=500] [cap=50]
//
// SMS sends per second through the worker into the Twilio fake of the tests, next to a bare HTTP
// client posting the same requests to the same fake, in the same run; then a provider account's
// throughput cap (maxPerSecond) as the fake sees it.
//   fake      test/support/providers/twilio-fake.ts in a process of its own (session of its own: a
//             provider is another machine), taking every send and noting when it took it
//   baseline  undici (keep-alive Agent) POSTs of the form the Twilio adapter sends (To, From, Body,
//             StatusCallback; basic auth) to the fake, DELIVERY_CONCURRENCY in flight
//   ours      `messages` SMS accepted by the api (POST /api/v1/send/sms, by phone number) while
//             the worker's delivery queue was paused (Bull's global pause: committed rows, their
//             jobs parked), then the queue resumed: the worker claims each message, takes the
//             account's budget in Redis, posts to the fake and records the attempt
// Both rates run from the first to the last send the fake received. Each round runs the baseline,
// then ours; the ratio is of the means over the rounds, each round's own is printed too. CPU per
// send of the worker, of the database's backends and of the fake (Linux /proc) is printed with it:
// on two cores the rates move with everything else the machine does, the CPU much less.
//   cap       `capped` SMS through a second account with maxPerSecond `cap`, parked and resumed
//             the same way; the fake's receive times in one-second bins, the first and the last
//             (partial) seconds left out: their mean is the rate the cap held.
// Then a campaign's fan-out over BENCH_FANOUT_CONTACTS contacts (default 100,000; 0 skips it) on
// three channels next to an email-only one (bench/support/campaign-fanout.ts).
// Environment: DELIVERY_CONCURRENCY (default 50), BENCH_NODE_ARGS (e.g. "--cpu-prof
// --cpu-prof-dir=/tmp/prof", flags of the api and worker processes), plus the harness's.
import Bull from 'bull';
import { ChildProcess, fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Client } from 'pg';
import { Agent } from 'undici';
import { BullConnections } from '@app/domain/queues/bull-connections';
import { QUEUES } from '@app/domain/queues/jobs';
import { bullQueuePrefix } from '@app/domain/redis/redis-client';
import { campaignFanoutBench } from './support/campaign-fanout';
import {
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
  UNREACHED_KEY_LIMITS,
} from './support/harness';

const N = Number(process.argv[2] || 3000);
const ROUNDS = Math.max(1, Number(process.argv[3] || 2));
const M = Number(process.argv[4] || 500);
const CAP = Number(process.argv[5] || 50);
const CONCURRENCY = Number(process.env.DELIVERY_CONCURRENCY || 50);
/** Untimed sends first: the bare client's are cheap, the api's and the worker's take seconds. */
const WARM_UP_BARE = 2000;
const WARM_UP = Math.min(1000, N);
/** Twilio's test-credential sender that every `To` outside the magic numbers is accepted from. */
const OUR_NUMBER = '+15005550006';
const TEXT = 'Your verification code is 482913. It expires in 10 minutes.';

interface Fake {
  child: ChildProcess;
  baseUrl: string;
  accountSid: string;
  authToken: string;
  count(): Promise<{ accepted: number; requests: number }>;
  /** Receive times of the sends accepted since the last call (then forgotten), and requests seen. */
  take(): Promise<{ times: number[]; requests: number }>;
}

function ask<T>(child: ChildProcess, command: string): Promise<T> {
  return new Promise((done) => {
    child.once('message', (m: T) => done(m));
    child.send(command);
  });
}

function startFake(): Promise<Fake> {
  const child = fork(resolve(ROOT, 'dist/bench/bench/support/twilio-fake-process.js'), [], {
    execArgv: ['-r', resolve(ROOT, 'scripts/alias.js')],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    detached: true,
  });
  return new Promise((done, fail) => {
    child.once('exit', (code) => fail(new Error(`the Twilio fake exited with ${code}`)));
    child.once('message', (m: { baseUrl: string; accountSid: string; authToken: string }) =>
      done({
        child,
        ...m,
        count: () => ask(child, 'count'),
        take: () => ask(child, 'take'),
      }),
    );
  });
}

async function pool(count: number, lanes: number, fn: (i: number) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      while (next < count) await fn(next++);
    }),
  );
}

/** Sends per second from the first to the last receive time. */
function rateOf(times: number[]): number {
  const first = Math.min(...times);
  const last = Math.max(...times);
  return (times.length - 1) / ((last - first) / 1000);
}

/** Counts per whole second (epoch-aligned, as the account's Redis windows are), gaps included. */
function perSecond(times: number[]): number[] {
  const first = Math.floor(Math.min(...times) / 1000);
  const bins = new Array<number>(Math.floor(Math.max(...times) / 1000) - first + 1).fill(0);
  for (const t of times) bins[Math.floor(t / 1000) - first]++;
  return bins;
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const loadavg = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

async function main(): Promise<void> {
  const apiPort = await freePort();
  const healthPort = await freePort();
  const api = `http://127.0.0.1:${apiPort}`;
  const dbUrl = await benchDatabase('mp_bench_channels');
  const env = benchEnv(dbUrl, {
    PORT: String(apiPort),
    PUBLIC_BASE_URL: api,
    WORKER_HEALTH_PORT: String(healthPort),
    INBOUND_SMTP_PORT: String(await freePort()),
    SMTP_PORT: String(await freePort()),
    // The fake listens on loopback: provider requests may go to private addresses.
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    // The bench's client posts from loopback: its address is not limited per IP.
    SEND_IP_ALLOWLIST: '127.0.0.1,::1',
    DELIVERY_CONCURRENCY: String(CONCURRENCY),
    RUN_MIGRATIONS: 'false',
  });
  admin(env, ['migrate']);
  const org = admin(env, ['create-org', '--name', 'channels bench', '--plan', 'enterprise']) as {
    organization: { id: string };
  };
  const orgId = org.organization.id;
  liftOrgLimits(env, orgId);
  const key = benchKey(env, orgId, 'bench', 'messages:send,channels:write', UNREACHED_KEY_LIMITS);

  const fake = await startFake();
  const apiApp = await startApp('api', env, () => httpReady(`${api}/health`), {
    ownSession: true,
  });
  let worker: ChildProcess | undefined;
  const db = new Client({ connectionString: dbUrl });
  await db.connect();
  const connections = new BullConnections(env.REDIS_URL!);
  const prefix = bullQueuePrefix(
    { redisUrl: env.REDIS_URL!, bullPrefix: env.BULL_PREFIX! },
    QUEUES.email,
  );
  const queue = new Bull(QUEUES.email, { prefix, createClient: connections.create });
  const toApi = new Agent({ keepAliveTimeout: 10_000, connections: CONCURRENCY });
  const toFake = new Agent({ keepAliveTimeout: 10_000, connections: CONCURRENCY });
  try {
    worker = await startApp(
      'worker',
      env,
      () => httpReady(`http://127.0.0.1:${healthPort}/health`),
      {
        ownSession: true,
      },
    );
    const workerPid = worker.pid!;

    const call = async (method: 'POST', path: string, body: unknown): Promise<unknown> => {
      const res = await toApi.request({
        origin: api,
        path,
        method,
        headers: { 'Content-Type': 'application/json', 'X-API-Key': key },
        body: JSON.stringify(body),
      });
      const text = await res.body.text();
      if (res.statusCode >= 300) throw new Error(`${method} ${path}: ${res.statusCode} ${text}`);
      return JSON.parse(text);
    };
    const account = async (name: string, maxPerSecond: number): Promise<string> => {
      const res = (await call('POST', '/api/v1/user/channel-providers', {
        channel: 'sms',
        provider: 'twilio',
        name,
        credentials: { accountSid: fake.accountSid, authToken: fake.authToken },
        settings: { from: OUR_NUMBER, apiBaseUrl: fake.baseUrl },
        maxPerSecond,
      })) as { data: { id: string } };
      return res.data.id;
    };
    const fast = await account('Twilio (uncapped)', 10_000);
    const capped = await account(`Twilio (${CAP}/s)`, CAP);

    let numbered = 0;
    const phone = () => `+1415${String(2_000_000 + numbered++).padStart(7, '0')}`;
    /** `count` SMS accepted by the api, `CONCURRENCY` requests in flight; answers accepted/s. */
    const enqueue = async (count: number, providerId: string): Promise<number> => {
      const t0 = process.hrtime.bigint();
      await pool(count, CONCURRENCY, async () => {
        await call('POST', '/api/v1/send/sms', {
          to: { phoneNumber: phone() },
          content: { text: TEXT },
          providerId,
        });
      });
      return count / (Number(process.hrtime.bigint() - t0) / 1e9);
    };
    const twilioPath = `/2010-04-01/Accounts/${encodeURIComponent(fake.accountSid)}/Messages.json`;
    const authorization =
      'Basic ' + Buffer.from(`${fake.accountSid}:${fake.authToken}`).toString('base64');
    const statusCallback = `${api}/channels/callbacks/${fast}`;
    /** The adapter's request, from a bare client. */
    const bare = (count: number) =>
      pool(count, CONCURRENCY, async () => {
        const res = await toFake.request({
          origin: fake.baseUrl,
          path: twilioPath,
          method: 'POST',
          headers: {
            Authorization: authorization,
            'Content-Type': 'application/x-www-form-urlencoded',
            Accept: 'application/json',
          },
          body: new URLSearchParams({
            To: phone(),
            From: OUR_NUMBER,
            Body: TEXT,
            StatusCallback: statusCallback,
          }).toString(),
        });
        const text = await res.body.text();
        if (res.statusCode !== 201) throw new Error(`fake answered ${res.statusCode}: ${text}`);
      });
    const untilReceived = async (count: number) => {
      const deadline = Date.now() + 120_000;
      for (;;) {
        const { accepted, requests } = await fake.count();
        if (accepted >= count) return;
        if (Date.now() > deadline)
          throw new Error(`the fake took ${accepted} of ${count} sends (${requests} requests)`);
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    /** Waits until `count` messages of the account are recorded `sent` (outside the clock). */
    const untilRecorded = async (providerId: string, count: number) => {
      const deadline = Date.now() + 60_000;
      for (;;) {
        const { rows } = await db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM messages
            WHERE organization_id = $1 AND provider_id = $2 AND status = 'sent'`,
          [orgId, providerId],
        );
        if (rows[0].n >= count) return;
        if (Date.now() > deadline)
          throw new Error(`${rows[0].n} of ${count} messages recorded sent`);
        await new Promise((r) => setTimeout(r, 200));
      }
    };
    const query = async (sql: string) => (await db.query<{ pid: number }>(sql)).rows;
    /** Transactions committed in the bench database so far (pg_stat_database, up to ~1 s late). */
    const commits = async () =>
      (
        await db.query<{ n: number }>(
          `SELECT xact_commit::int AS n FROM pg_stat_database WHERE datname = current_database()`,
        )
      ).rows[0].n;
    /** The sends of a parked backlog, from the queue's resume until the fake took them all. */
    const drain = async (count: number) => {
      // The api's last commits of the backlog land in the statistics up to a second late.
      await new Promise((r) => setTimeout(r, 1000));
      await fake.take();
      const pg0 = await backendsCpu(query);
      const worker0 = processCpuMs(workerPid);
      const fake0 = processCpuMs(fake.child.pid!);
      const commits0 = await commits();
      await queue.resume();
      await untilReceived(count);
      const workerCpu = (processCpuMs(workerPid) - worker0) / count;
      const fakeCpu = (processCpuMs(fake.child.pid!) - fake0) / count;
      const pgCpu = (await backendsCpuSince(query, pg0)) / count;
      const { times, requests } = await fake.take();
      if (requests !== count) throw new Error(`${requests} requests for ${count} sends`);
      // The statistics collector reports commits late: read once the last ones had time to land.
      await new Promise((r) => setTimeout(r, 1000));
      const commitsEach = ((await commits()) - commits0) / count;
      return { times, workerCpu, fakeCpu, pgCpu, commitsEach };
    };

    // Warm-up (untimed): both paths, the api, the worker and the fake past their first requests.
    await bare(WARM_UP_BARE);
    await enqueue(WARM_UP, fast);
    await untilReceived(WARM_UP_BARE + WARM_UP);
    let sentFast = WARM_UP;
    await untilRecorded(fast, sentFast);

    const baseline: { rate: number; clientCpu: number; fakeCpu: number }[] = [];
    const ours: {
      rate: number;
      accepted: number;
      workerCpu: number;
      pgCpu: number;
      fakeCpu: number;
      commitsEach: number;
    }[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      await fake.take();
      const client0 = process.cpuUsage();
      const fake0 = processCpuMs(fake.child.pid!);
      await bare(N);
      const used = process.cpuUsage(client0);
      const fakeCpu = (processCpuMs(fake.child.pid!) - fake0) / N;
      const b = await fake.take();
      if (b.times.length !== N)
        throw new Error(`baseline: the fake took ${b.times.length} of ${N}`);
      baseline.push({
        rate: rateOf(b.times),
        clientCpu: (used.user + used.system) / 1000 / N,
        fakeCpu,
      });

      await queue.pause();
      const accepted = await enqueue(N, fast);
      const o = await drain(N);
      sentFast += N;
      await untilRecorded(fast, sentFast);
      ours.push({ rate: rateOf(o.times), accepted, ...o });
      process.stderr.write(
        `round ${round + 1}: baseline ${fmt(baseline[round].rate)}/s, ours ${fmt(ours[round].rate)}/s ` +
          `(api accepted ${fmt(accepted)}/s), load ${loadavg()}\n`,
      );
    }

    // The cap: a parked backlog through the capped account.
    await queue.pause();
    await enqueue(M, capped);
    const c = await drain(M);
    await untilRecorded(capped, M);
    const bins = perSecond(c.times);
    const steady = bins.slice(1, -1);
    const capRate = steady.length ? mean(steady) : NaN;

    const b = mean(baseline.map((r) => r.rate));
    const o = mean(ours.map((r) => r.rate));
    const cpu = (xs: number[]) => fmt(mean(xs), 3);
    process.stdout.write(
      [
        `channels: ${N} SMS per run, ${ROUNDS} rounds of baseline then ours, ${CONCURRENCY} in flight (DELIVERY_CONCURRENCY)`,
        `baseline  undici POSTs of the same form to the Twilio fake   ${fmt(b)} sends/s (${baseline
          .map((r) => fmt(r.rate))
          .join(' / ')})`,
        `ours      api → queue (parked) → worker → Twilio fake         ${fmt(o)} sends/s (${ours
          .map((r) => fmt(r.rate))
          .join(' / ')}); the api accepted ${fmt(mean(ours.map((r) => r.accepted)))}/s`,
        `ratio     ${fmt(o / b, 2)} (target >= 0.60); per round ${ours
          .map((r, i) => fmt(r.rate / baseline[i].rate, 2))
          .join(' / ')}`,
        `CPU per send: worker ${cpu(ours.map((r) => r.workerCpu))} ms, its PostgreSQL backends ${cpu(
          ours.map((r) => r.pgCpu),
        )} ms (${fmt(mean(ours.map((r) => r.commitsEach)), 2)} commits), the fake ${cpu(ours.map((r) => r.fakeCpu))} ms; baseline client ${cpu(
          baseline.map((r) => r.clientCpu),
        )} ms, the fake ${cpu(baseline.map((r) => r.fakeCpu))} ms (load ${loadavg()})`,
        `cap       ${M} SMS through an account of maxPerSecond ${CAP}: ${fmt(capRate, 1)} sends/s over ${
          steady.length
        } whole seconds (${fmt(((capRate - CAP) / CAP) * 100, 1)} %, target within 5 %); per second ${bins.join(
          ' ',
        )}`,
      ].join('\n') + '\n',
    );
  } finally {
    await queue.close();
    await connections.close();
    await toApi.close();
    await toFake.close();
    await db.end();
    if (worker) await stop(worker);
    await stop(apiApp);
    fake.child.send('stop');
  }
}

/** The campaign fan-out part (bench/support/campaign-fanout.ts), unless BENCH_FANOUT_CONTACTS=0. */
async function fanout(): Promise<void> {
  const contacts = Number(process.env.BENCH_FANOUT_CONTACTS ?? 100_000);
  if (!contacts) return;
  process.stdout.write((await campaignFanoutBench(contacts)).join('\n') + '\n');
}

main()
  .then(fanout)
  .then(
    () => process.exit(0),
    (err: Error) => {
      process.stderr.write(`bench failed: ${err.stack}\n`);
      process.exit(1);
    },
  );
