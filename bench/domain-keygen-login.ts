// §16: another organization's sign-in latency while one organization creates sending domains at
// once (each a 2048-bit RSA key), next to the same sign-ins with nothing else running.
//   npm run bench -- domain-keygen-login [creates=12] [logins=20]
import {
  admin,
  benchDatabase,
  benchEnv,
  fmt,
  httpReady,
  percentile,
  startApp,
  stop,
} from './support/harness';

const creates = Number(process.argv[2] || 12);
const logins = Number(process.argv[3] || 20);
const PORT = 3991;
const BASE = `http://127.0.0.1:${PORT}`;
const PASSWORD = 'bench password of some length';

async function login(email: string): Promise<number> {
  const started = performance.now();
  const res = await fetch(`${BASE}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: PASSWORD }),
  });
  if (res.status !== 200) throw new Error(`login answered ${res.status}`);
  await res.arrayBuffer();
  return performance.now() - started;
}

/** Sign-ins one after the other: `count` of them, and for as long as `until` is pending. */
async function signIns(email: string, count: number, until?: Promise<unknown>): Promise<number[]> {
  let pending = !!until;
  void until?.finally(() => (pending = false));
  const out: number[] = [];
  while (out.length < count || pending) out.push(await login(email));
  return out;
}

function line(name: string, ms: number[]): string {
  return `${name.padEnd(34)} n=${String(ms.length).padStart(3)}  p50 ${fmt(percentile(ms, 50))} ms  p99 ${fmt(percentile(ms, 99))} ms  max ${fmt(Math.max(...ms))} ms`;
}

async function main(): Promise<void> {
  const env = benchEnv(await benchDatabase('mp_bench_keygen_login'), {
    PORT: String(PORT),
    RUN_MIGRATIONS: 'true',
  });
  const api = await startApp('api', env, () => httpReady(`${BASE}/health`));
  try {
    const owner = admin(env, [
      'create-org',
      '--name',
      'keys',
      '--plan',
      'enterprise',
      '--with-key',
    ]) as {
      apiKey: { key: string };
    };
    const other = admin(env, ['create-org', '--name', 'signs-in']) as {
      organization: { id: string };
    };
    const email = 'bench@login.test';
    admin(
      env,
      [
        'create-user',
        '--email',
        email,
        '--password-stdin',
        '--org',
        other.organization.id,
        '--role',
        'owner',
      ],
      `${PASSWORD}\n`,
    );
    await signIns(email, 3);

    const idle = await signIns(email, logins);
    // Rounds of `creates` concurrent creates, signing in only while a round is under way, until
    // `logins` sign-ins overlapped one.
    const loaded: number[] = [];
    const roundMs: number[] = [];
    for (let round = 0; loaded.length < logins; round++) {
      const started = performance.now();
      const domains = Promise.all(
        Array.from({ length: creates }, async (_, i) => {
          const res = await fetch(`${BASE}/api/v1/user/sending-domains`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'X-API-Key': owner.apiKey.key },
            body: JSON.stringify({ name: `bench-${round}-${i}-${Date.now()}.test` }),
          });
          if (res.status !== 201) throw new Error(`create answered ${res.status}`);
        }),
      ).then(() => roundMs.push(performance.now() - started));
      loaded.push(...(await signIns(email, 0, domains)));
    }
    const p99 = (ms: number[]) => percentile(ms, 99);
    process.stdout.write(
      [
        `domain-keygen-login: ${creates} concurrent domain creates of one organization, sign-ins of another`,
        line('sign-in, nothing else running', idle),
        line(`sign-in during ${creates} creates`, loaded),
        `${creates} creates took ${fmt(percentile(roundMs, 50))} ms a round (${roundMs.length} rounds)`,
        `ratio p99 during ÷ alone: ${fmt(p99(loaded) / p99(idle), 2)}`,
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
