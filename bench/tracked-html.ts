// The worker's /health answer times while it tracks about 5 MB of pathological HTML, next to its
// answer times when idle, measured in the same run.
//   npm run bench -- tracked-html [rounds=3]
// Each round polls the worker's /health back to back, one request at a time, for a second while
// nothing is sent, then from the send of one hostile message (open and click tracking; the shape
// of test/support/hostile-html.ts) until the SMTP sink has it. The worker tokenizes the body a
// piece per event-loop turn and signs a few hundred links per turn, so an answer waits for one
// piece at most. Target: the slowest answer during a send under 200 ms.
import { ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { hostileTrackedHtml } from '../test/support/hostile-html';
import {
  admin,
  benchDatabase,
  benchEnv,
  benchKey,
  fmt,
  freePort,
  httpReady,
  median,
  startApp,
  stop,
} from './support/harness';
import { startSink } from './support/sink';

const rounds = Math.max(1, Number(process.argv[2] || 3));

/** Milliseconds from the request to the end of the answer, on a connection of its own. */
function healthMs(url: string): Promise<number> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(url, { agent: false }, (res) =>
      res
        .resume()
        .on('end', () => resolve(performance.now() - t0))
        .on('error', reject),
    );
    req.on('error', reject).end();
  });
}

/** /health answer times, polled back to back while `work` runs. */
async function healthDuring(url: string, work: () => Promise<void>): Promise<number[]> {
  const latencies: number[] = [];
  let done = false;
  const probes = (async () => {
    while (!done) latencies.push(await healthMs(url));
  })();
  try {
    await work();
  } finally {
    done = true;
    await probes;
  }
  return latencies;
}

async function main(): Promise<void> {
  const apiPort = await freePort();
  const healthPort = await freePort();
  const api = `http://127.0.0.1:${apiPort}`;
  const health = `http://127.0.0.1:${healthPort}/health`;
  const sink = await startSink();
  const env = benchEnv(await benchDatabase('mp_bench_tracked_html'), {
    PORT: String(apiPort),
    PUBLIC_BASE_URL: api,
    WORKER_HEALTH_PORT: String(healthPort),
    INBOUND_SMTP_PORT: String(await freePort()),
    SMTP_PORT: String(await freePort()),
    SMTP_OUTBOUND_URL: `smtp://127.0.0.1:${sink.port}`,
    RUN_MIGRATIONS: 'false',
  });
  admin(env, ['migrate']);
  const org = admin(env, [
    'create-org',
    '--name',
    'tracked html bench',
    '--plan',
    'enterprise',
  ]) as {
    organization: { id: string };
  };
  const apiKey = benchKey(env, org.organization.id, 'bench', 'messages:send');
  const apiApp = await startApp('api', env, () => httpReady(`${api}/health`), { ownSession: true });
  let worker: ChildProcess | undefined;
  try {
    worker = await startApp('worker', env, () => httpReady(health), { ownSession: true });
    const { html, links } = hostileTrackedHtml();

    /** Sends one message and resolves once the sink has received it. */
    const sendOne = async (body: Record<string, unknown>): Promise<void> => {
      const before = await sink.count();
      const res = await fetch(`${api}/api/v1/send`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-API-Key': apiKey },
        body: JSON.stringify({
          from: 'Bench <bench@bench.test>',
          to: 'reader@example.test',
          subject: 'Offers',
          ...body,
        }),
      });
      if (res.status !== 202) throw new Error(`send: ${res.status} ${await res.text()}`);
      const deadline = Date.now() + 120_000;
      while ((await sink.count()) === before) {
        if (Date.now() > deadline) throw new Error('the message did not reach the sink');
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    // A first delivery starts the worker's SMTP thread, which is not what this bench measures.
    await sendOne({ text: 'warm-up' });

    const idle: number[] = [];
    const during: number[] = [];
    for (let i = 0; i < rounds; i++) {
      idle.push(...(await healthDuring(health, () => new Promise((r) => setTimeout(r, 1000)))));
      during.push(
        ...(await healthDuring(health, () =>
          sendOne({ html, track: { clicks: true, opens: true } }),
        )),
      );
    }
    const line = (name: string, xs: number[]) =>
      `${name} ${xs.length} answers, median ${fmt(median(xs), 1)} ms, slowest ${fmt(Math.max(...xs), 1)} ms`;
    process.stdout.write(
      [
        `tracked-html: ${rounds} rounds; /health of the worker, back to back`,
        line('baseline  idle worker                                  ', idle),
        line(`ours      while it tracks ${fmt(html.length / 1e6, 1)} MB, ${links} links`, during),
        'target    slowest during a send < 200 ms',
      ].join('\n') + '\n',
    );
  } finally {
    if (worker) await stop(worker);
    await stop(apiApp);
    sink.child.send('stop');
  }
}

main().then(
  () => process.exit(0),
  (err: Error) => {
    process.stderr.write(`bench failed: ${err.stack}\n`);
    process.exit(1);
  },
);
