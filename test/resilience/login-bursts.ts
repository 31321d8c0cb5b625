// Login bursts (§16): concurrent waves of wrong logins from one fresh address, with a new email
// each (the per-IP window: 20 in 15 minutes), and against one account from one fresh address (the
// account and address pair: 3 free failures, then a doubling wait during which attempts are
// refused unchecked). Every answer is 401 until the limit, then 429 with Retry-After; never a 5xx,
// never a hang. Attempts are counted before they are checked, so a wave cannot slip more guesses
// past the limit.
import fc from 'fast-check';
import { randomInt, randomUUID } from 'node:crypto';
import { wrongLogin } from './support/arbitraries';
import type { Reporter } from './support/context';
import { checkAnswer } from './support/envelope';
import { HttpAnswer, HttpClient, RequestTimeoutError } from './support/http';

const LOGIN = '/api/v1/auth/login';
const IP_LIMIT = 20;
/** Failures of one account from one address before its wait starts (LOGIN_FREE_FAILURES). */
const PAIR_LIMIT = 3;
const WINDOW_SECONDS = 15 * 60;
const TOO_MANY = 'Too many failed attempts, please try again later';

/** A loopback address outside 127.0.0.x (the suite's own and the fuzzer's stranger address). */
function freshLoopback(): string {
  return `127.${randomInt(1, 255)}.${randomInt(0, 256)}.${randomInt(1, 255)}`;
}

/** What is wrong with one answer of a burst; null when it is a proper 401 or 429. */
function judgeOne(a: HttpAnswer): string | null {
  const envelope = checkAnswer(a, 'envelope');
  if (envelope) return envelope;
  const body = a.json as { code?: string; message?: string; retryAfter?: number } | undefined;
  if (a.status === 401) return body?.code === 'E_UNAUTHORIZED' ? null : `401 ${body?.code}`;
  if (a.status !== 429) return `status ${a.status}: ${a.body.toString('utf8').slice(0, 160)}`;
  if (body?.message !== TOO_MANY) return `429 with message ${body?.message}`;
  const retryAfter = Number(a.headers['retry-after']);
  if (!(retryAfter >= 1 && retryAfter <= WINDOW_SECONDS) || body.retryAfter !== retryAfter) {
    return `429 with Retry-After ${String(a.headers['retry-after'])} / ${body.retryAfter}`;
  }
  return null;
}

interface BurstResult {
  requests: number;
  problems: string[];
  statuses: string;
  ms: number;
}

/**
 * `waves` waves of `size` concurrent wrong logins (bodies from `bodies`), spread over `clients`;
 * exactly `limit` must be 401 and, once a wave saw a 429, every later answer 429.
 */
async function burst(
  clients: HttpClient[],
  bodies: fc.Arbitrary<string>,
  waves: number,
  size: number,
  limit: number,
  seed: number,
): Promise<BurstResult> {
  const started = Date.now();
  const sample = fc.sample(bodies, { numRuns: waves * size, seed });
  const problems: string[] = [];
  const counts = new Map<number, number>();
  let refusedBefore = false;
  for (let w = 0; w < waves; w++) {
    const answers = await Promise.all(
      sample.slice(w * size, (w + 1) * size).map(async (body, i) => {
        try {
          return await clients[(w * size + i) % clients.length].request({
            method: 'POST',
            path: LOGIN,
            headers: { 'content-type': 'application/json' },
            body,
          });
        } catch (err) {
          problems.push(
            err instanceof RequestTimeoutError
              ? err.message
              : `transport: ${(err as Error).message}`,
          );
          return null;
        }
      }),
    );
    for (const a of answers) {
      if (!a) continue;
      counts.set(a.status, (counts.get(a.status) ?? 0) + 1);
      const problem = judgeOne(a);
      if (problem) problems.push(problem);
      else if (a.status === 401 && refusedBefore) problems.push('401 after a wave that saw 429');
    }
    if (answers.some((a) => a?.status === 429)) refusedBefore = true;
  }
  const checked = counts.get(401) ?? 0;
  if (checked !== limit) problems.push(`${checked} attempts checked (401), expected ${limit}`);
  return {
    requests: waves * size,
    problems,
    statuses: [...counts.entries()]
      .sort()
      .map(([s, n]) => `${s}:${n}`)
      .join(' '),
    ms: Date.now() - started,
  };
}

/**
 * Runs both bursts and records one row each (skipped when the api is not on loopback); returns
 * the bad answers for the caller's verdict.
 */
export async function loginBursts(
  apiUrl: string,
  reporter: Reporter,
  seed: number,
): Promise<string[]> {
  const host = new URL(apiUrl).hostname;
  if (!['127.0.0.1', 'localhost'].includes(host)) {
    for (const name of ['login burst, one IP', 'login burst, one account']) {
      reporter.record({
        section: 'fuzz',
        name,
        requests: 0,
        errors: 0,
        lost: 0,
        passed: true,
        skipped: true,
        notes: 'needs fresh loopback source addresses: the api is not on this machine',
      });
    }
    return [];
  }
  const base = apiUrl.replace('localhost', '127.0.0.1');
  const client = (address: string) =>
    new HttpClient(base, { connections: 8, timeoutMs: 60_000, localAddress: address });

  // One address, a new unknown email per attempt: only the per-IP window can refuse.
  const ipClient = client(freshLoopback());
  const perIp = await burst(
    [ipClient],
    fc.uuid().chain((id) => wrongLogin(`burst-${id}@example.com`)),
    5,
    8,
    IP_LIMIT,
    seed,
  );
  // One unknown email from another fresh address, far below the per-IP limit: the pair's wait
  // (doubled by each refused attempt, so it outlasts the waves) admits only the free failures.
  const accountClient = client(freshLoopback());
  const perAccount = await burst(
    [accountClient],
    wrongLogin(`burst-${randomUUID()}@example.com`),
    5,
    5,
    PAIR_LIMIT,
    seed + 1,
  );
  await Promise.all([ipClient, accountClient].map((c) => c.close()));

  for (const [name, r, limit] of [
    ['login burst, one IP', perIp, IP_LIMIT],
    ['login burst, one account and address', perAccount, PAIR_LIMIT],
  ] as const) {
    reporter.record({
      section: 'fuzz',
      name,
      requests: r.requests,
      errors: r.problems.length,
      lost: 0,
      passed: r.problems.length === 0,
      notes: `${r.requests} wrong logins in concurrent waves, ${limit} may be checked; statuses ${r.statuses}; ${(r.ms / 1000).toFixed(1)} s${
        r.problems.length ? `; first: ${r.problems[0].slice(0, 200)}` : ''
      }`,
    });
  }
  return [...perIp.problems, ...perAccount.problems];
}
