// Requests/s of an authenticated, rate-limited GET next to an unauthenticated route of the same
// server in the same run, and their ratio (target ≥ 0.85).
//   npm run bench -- auth-overhead [seconds=10] [connections=50]
import autocannon from 'autocannon';
import {
  admin,
  benchDatabase,
  benchEnv,
  benchKey,
  fmt,
  httpReady,
  startApp,
  stop,
  UNREACHED_KEY_LIMITS,
} from './support/harness';

const seconds = Number(process.argv[2] || 10);
const connections = Number(process.argv[3] || 50);
const PORT = 3990;

function run(url: string, headers: Record<string, string> = {}): Promise<autocannon.Result> {
  return autocannon({ url, connections, duration: seconds, headers, pipelining: 1 });
}

async function main(): Promise<void> {
  const env = benchEnv(await benchDatabase('mp_bench_auth'), {
    PORT: String(PORT),
    RUN_MIGRATIONS: 'true',
  });
  const api = await startApp('api', env, () => httpReady(`http://127.0.0.1:${PORT}/health`));
  try {
    const out = admin(env, ['create-org', '--name', 'bench', '--with-key']) as {
      organization: { id: string };
    };
    // A high per-key budget: every request still runs the limiter, none is refused.
    const key = benchKey(env, out.organization.id, 'bench', 'all', UNREACHED_KEY_LIMITS);
    const base = `http://127.0.0.1:${PORT}`;
    // Warm-up, then alternate so drift affects both sides alike.
    await autocannon({ url: `${base}/health/live`, connections, duration: 2 });
    const open1 = await run(`${base}/health/live`);
    const auth1 = await run(`${base}/api/v1/user/me`, { 'X-API-Key': key });
    const open2 = await run(`${base}/health/live`);
    const auth2 = await run(`${base}/api/v1/user/me`, { 'X-API-Key': key });
    for (const r of [open1, auth1, open2, auth2]) {
      if (r.non2xx || r.errors)
        throw new Error(`bench saw failures: non2xx=${r.non2xx} errors=${r.errors}`);
    }
    const open = (open1.requests.average + open2.requests.average) / 2;
    const auth = (auth1.requests.average + auth2.requests.average) / 2;
    const p99 = (r: autocannon.Result) => r.latency.p99;
    process.stdout.write(
      [
        `auth-overhead: ${connections} connections, ${seconds}s per run, 2 runs each`,
        `baseline  GET /health/live (no auth)            ${fmt(open)} req/s  p99 ${fmt((p99(open1) + p99(open2)) / 2, 1)} ms`,
        `ours      GET /api/v1/user/me (key + limiter)   ${fmt(auth)} req/s  p99 ${fmt((p99(auth1) + p99(auth2)) / 2, 1)} ms`,
        `ratio     ${fmt(auth / open, 2)} (target >= 0.85)`,
      ].join('\n') + '\n',
    );
  } finally {
    await stop(api);
  }
}

main().then(
  () => process.exit(0),
  (err: Error) => {
    process.stderr.write(`bench failed: ${err.stack}\n`);
    process.exit(1);
  },
);
