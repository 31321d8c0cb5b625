// Shared bench plumbing: a throwaway database, the compiled apps as child processes, an org and key.
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { AddressInfo, createServer } from 'node:net';
import { resolve } from 'node:path';
import { Client } from 'pg';
import { redisMasters, type RedisClient } from '../../libs/domain/src/redis/redis-client';

// Compiled to dist/bench/bench/support/: four levels up is the repository.
export const ROOT = resolve(__dirname, '../../../..');
const ALIAS = resolve(ROOT, 'scripts/alias.js');
const ADMIN_URL =
  process.env.BENCH_ADMIN_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';

/**
 * Creates (or recreates) a bench database and returns its URL. BENCH_DB_PREFIX is put before the
 * name, so two checkouts (or sessions) can bench on one server without dropping each other's data.
 */
export async function benchDatabase(base: string, adminUrl = ADMIN_URL): Promise<string> {
  const name = `${process.env.BENCH_DB_PREFIX ?? ''}${base}`;
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

export function benchEnv(
  databaseUrl: string,
  extra: Record<string, string> = {},
): NodeJS.ProcessEnv {
  return {
    ...process.env,
    NODE_ENV: 'production',
    DATABASE_URL: databaseUrl,
    REDIS_URL: process.env.BENCH_REDIS_URL || 'redis://127.0.0.1:6379/14',
    ENCRYPTION_KEY: Buffer.alloc(32, 42).toString('base64'),
    BULL_PREFIX: `bench-${randomBytes(3).toString('hex')}`,
    LOG_LEVEL: 'warn',
    // The benches send From domains they have not verified (production would refuse them); the
    // send bench verifies one where it measures signing.
    SENDING_DOMAIN_POLICY: 'allow',
    ...extra,
  };
}

/**
 * Starts a compiled app (api, worker, smtp-relay) and resolves once `ready` answers. `ownSession`
 * starts it in a session of its own, as a deployed service runs: with the kernel's autogroup
 * scheduling (Linux desktop and many VM defaults), CPU is shared between sessions first, so an
 * app in the bench's own process session would split that session's CPU share with the bench
 * and its load generator.
 */
export async function startApp(
  app: 'api' | 'worker' | 'smtp-relay',
  env: NodeJS.ProcessEnv,
  ready: () => Promise<boolean>,
  opts: { ownSession?: boolean } = {},
): Promise<ChildProcess> {
  const main = resolve(ROOT, `dist/bench/apps/${app}/src/main.js`);
  // BENCH_NODE_ARGS adds flags to the app processes, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof".
  const extra = process.env.BENCH_NODE_ARGS ? process.env.BENCH_NODE_ARGS.split(' ') : [];
  const child = spawn(process.execPath, [...extra, '-r', ALIAS, main], {
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
    detached: opts.ownSession ?? false,
  });
  // Generous: on a loaded machine a cold start of the compiled app takes tens of seconds.
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${app} exited with ${child.exitCode}`);
    if (await ready().catch(() => false)) return child;
    await new Promise((r) => setTimeout(r, 200));
  }
  child.kill('SIGKILL');
  throw new Error(`${app} did not become ready`);
}

/** A TCP port that was free a moment ago on loopback (the kernel's pick). */
export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => done(port));
    });
  });
}

export async function httpReady(url: string): Promise<boolean> {
  const res = await fetch(url);
  return res.ok;
}

/** Runs an admin command (`input`, when given, is its standard input); answers its JSON output. */
export function admin(
  env: NodeJS.ProcessEnv,
  args: string[],
  input?: string,
): Record<string, unknown> {
  const cli = resolve(ROOT, 'dist/bench/apps/api/src/cli.js');
  const out = execFileSync(
    process.execPath,
    [
      '-r',
      ALIAS,
      '-e',
      `require(${JSON.stringify(cli)}).cliMain(${JSON.stringify([...args, '--json'])})`,
    ],
    {
      env,
      encoding: 'utf8',
      input,
      stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'inherit'],
    },
  );
  return JSON.parse(out.trim().split('\n').pop()!);
}

/** `create-key` options of a per-key budget far above any bench: the limiter runs, never refuses. */
export const UNREACHED_KEY_LIMITS = ['--per-minute', '100000000', '--per-day', '1000000000'];

/**
 * Sets the organization's limits far above any bench, so the limit script runs on every send
 * without refusing one.
 */
export function liftOrgLimits(env: NodeJS.ProcessEnv, orgId: string): void {
  admin(env, [
    'set-limits',
    ...['--org', orgId, '--per-second', '1000000', '--per-minute', '100000000'],
    ...['--per-hour', '100000000', '--per-day', '100000000', '--per-month', '1000000000'],
  ]);
}

/**
 * A new API key of the organization through the admin CLI: `scopes` as `create-key` takes them,
 * `options` any further `create-key` options (its per-key limits); answers the key's value.
 */
export function benchKey(
  env: NodeJS.ProcessEnv,
  orgId: string,
  name: string,
  scopes: string,
  options: string[] = [],
): string {
  const out = admin(env, [
    'create-key',
    ...['--org', orgId, '--name', name, '--scopes', scopes],
    ...options,
  ]) as { apiKey: { key: string } };
  return out.apiKey.key;
}

export function stop(child: ChildProcess): Promise<void> {
  return new Promise((done) => {
    if (child.exitCode !== null) return done();
    child.once('exit', () => done());
    child.kill('SIGTERM');
  });
}

/** The p-th percentile (nearest rank) of `values`. */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

export function fmt(n: number, digits = 0): string {
  return n.toLocaleString('en-US', {
    maximumFractionDigits: digits,
    minimumFractionDigits: digits,
  });
}

/** The fields of /proc/<pid>/stat after the command name (which may hold spaces), or null. */
export function procStatFields(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/**
 * CPU time (user + system, ms) another process has used, from Linux /proc (0 where it cannot be
 * read); with `reapedChildren`, that of its children it has waited for too.
 */
export function processCpuMs(pid: number, opts: { reapedChildren?: boolean } = {}): number {
  const f = procStatFields(pid);
  if (!f) return 0;
  // utime and stime are the 14th and 15th fields, cutime and cstime the 16th and 17th.
  const ticks = Number(f[11]) + Number(f[12]);
  const children = opts.reapedChildren ? Number(f[13]) + Number(f[14]) : 0;
  return ((ticks + children) * 1000) / 100;
}

/** Runs a statement on a connection to the bench database and returns its rows. */
export type RowsQuery = (sql: string) => Promise<{ pid: number }[]>;

const BACKENDS = `SELECT pid FROM pg_stat_activity
  WHERE datname = current_database() AND backend_type = 'client backend'`;

/** Whether `pid` is a PostgreSQL process on this host (a remote server's pids are not). */
function isLocalPostgres(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres';
  } catch {
    return false;
  }
}

/**
 * CPU (ms) each client backend of the bench database has used so far, by pid (the one running
 * this lookup included: a few statements per run). Only a server on this host can be read: a
 * remote one gives an empty map, so its CPU reads as 0.
 */
export async function backendsCpu(query: RowsQuery): Promise<Map<number, number>> {
  const cpu = new Map<number, number>();
  for (const { pid } of await query(BACKENDS))
    if (isLocalPostgres(pid)) cpu.set(pid, processCpuMs(pid));
  return cpu;
}

/**
 * CPU (ms) the bench database's backends used since `before`. A backend that connected since then
 * spent all of its CPU in the interval; one that disconnected is not counted (pools keep theirs).
 */
export async function backendsCpuSince(
  query: RowsQuery,
  before: Map<number, number>,
): Promise<number> {
  let ms = 0;
  for (const [pid, now] of await backendsCpu(query)) ms += now - (before.get(pid) ?? 0);
  return ms;
}

/** The whole machine's idle and total CPU time so far, in clock ticks (Linux /proc/stat). */
export function machineTicks(): { idle: number; total: number } {
  try {
    // cpu  user nice system idle iowait irq softirq steal guest guest_nice
    const ticks = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1, 9);
    const n = ticks.map(Number);
    return { idle: n[3] + n[4], total: n.reduce((a, b) => a + b, 0) };
  } catch {
    return { idle: 0, total: 0 };
  }
}

/** The share (0-1) of the machine's CPU time that was idle since `before` (NaN where unknown). */
export function idleShareSince(before: { idle: number; total: number }): number {
  const now = machineTicks();
  return (now.idle - before.idle) / (now.total - before.total);
}

/** The middle value (the upper one of the two middle values for an even count). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/**
 * `--cluster`: a three-master Redis Cluster on loopback for the bench's apps, for the run
 * (test/support/redis-cluster.ts).
 */
export async function benchCluster(): Promise<{ url: string; stop(): Promise<void> }> {
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { startRedisCluster } =
    require('../../test/support/redis-cluster') as typeof import('../../test/support/redis-cluster');
  /* eslint-enable @typescript-eslint/no-require-imports */
  return startRedisCluster();
}

/** The process ids of the Redis servers behind a client: one, or every master of a cluster. */
export async function redisServerPids(redis: RedisClient): Promise<number[]> {
  const infos = await Promise.all(redisMasters(redis).map((s) => s.info('server')));
  return infos.map((info) => Number(/process_id:(\d+)/.exec(info)?.[1]));
}
