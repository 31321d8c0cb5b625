// Helpers of the self-hosting tests, which run the BUILT processes as a user would: a database of
// their own on the run's PostgreSQL server, the run's Redis under a prefix of their own, free ports,
// child processes whose output is watched line by line.
import { ChildProcess, spawn, SpawnOptions } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer, Server } from 'node:net';
import { resolve } from 'node:path';
import { Client } from 'pg';

export const ROOT = resolve(__dirname, '../..');

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { build } = require('../../scripts/build.js') as {
  build(names: string[], opts: { ifStale: boolean; log?: (m: string) => void }): void;
};

/** Builds the named targets when they are stale (the way `npm start` does). */
export function ensureBuilt(...targets: string[]): void {
  build(targets, { ifStale: true, log: () => undefined });
}

export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

/**
 * `count` distinct free ports: every probe stays open until all are taken, so the kernel cannot
 * hand the same port out twice.
 */
export async function freePorts(count: number): Promise<number[]> {
  const servers: Server[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const server = createServer();
      servers.push(server);
      await new Promise<void>((done, fail) => {
        server.once('error', fail);
        server.listen(0, '127.0.0.1', done);
      });
    }
    return servers.map((s) => (s.address() as { port: number }).port);
  } finally {
    await Promise.all(servers.map((s) => new Promise((done) => s.close(done))));
  }
}

/** A new, empty database on the server of the run's DATABASE_URL; `drop` removes it. */
export async function freshDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const runUrl = process.env.DATABASE_URL;
  if (!runUrl) throw new Error('DATABASE_URL is unset: run under the e2e global setup');
  const name = `mp_selfhost_${Date.now()}_${randomBytes(3).toString('hex')}`;
  const admin = new Client({ connectionString: runUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const url = new URL(runUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new Client({ connectionString: runUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await c.end();
    },
  };
}

/** The run's Redis and a queue prefix no other test file uses. */
export function isolatedRedis(): { REDIS_URL: string; BULL_PREFIX: string } {
  return {
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/9',
    BULL_PREFIX: `${process.env.BULL_PREFIX ?? 'mp-test'}-selfhost-${randomBytes(3).toString('hex')}`,
  };
}

/** A child process whose stdout and stderr are kept and can be awaited line by line. */
export class Proc {
  readonly child: ChildProcess;
  output = '';
  private readonly waiters: { pattern: RegExp; done: (line: string) => void }[] = [];

  constructor(
    readonly name: string,
    command: string,
    args: string[],
    options: SpawnOptions,
  ) {
    this.child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let partial = '';
    const onData = (chunk: Buffer) => {
      this.output += chunk.toString();
      const lines = (partial + chunk.toString()).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        for (const w of [...this.waiters]) {
          if (!w.pattern.test(line)) continue;
          this.waiters.splice(this.waiters.indexOf(w), 1);
          w.done(line);
        }
      }
    };
    this.child.stdout!.on('data', onData);
    this.child.stderr!.on('data', onData);
  }

  /** Resolves with the first line (from now on) matching `pattern`; rejects if the process ends. */
  line(pattern: RegExp, timeoutMs = 120_000): Promise<string> {
    return new Promise((done, fail) => {
      const timer = setTimeout(() => {
        fail(
          new Error(`${this.name}: no line matching ${pattern} in ${timeoutMs} ms\n${this.tail()}`),
        );
      }, timeoutMs);
      const exited = () => {
        clearTimeout(timer);
        fail(new Error(`${this.name} exited before ${pattern}\n${this.tail()}`));
      };
      this.child.once('exit', exited);
      this.waiters.push({
        pattern,
        done: (line) => {
          clearTimeout(timer);
          this.child.off('exit', exited);
          done(line);
        },
      });
    });
  }

  /** Resolves with the exit code. */
  exit(timeoutMs = 60_000): Promise<number | null> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) {
      return Promise.resolve(this.child.exitCode);
    }
    return new Promise((done, fail) => {
      const timer = setTimeout(
        () => fail(new Error(`${this.name} still running after ${timeoutMs} ms\n${this.tail()}`)),
        timeoutMs,
      );
      this.child.once('exit', (code) => {
        clearTimeout(timer);
        done(code);
      });
    });
  }

  /** SIGTERM (to the whole process group when it was started detached), then waits. */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const ended = new Promise((r) => this.child.once('exit', r));
    try {
      if (this.child.pid) process.kill(-this.child.pid, 'SIGTERM');
    } catch {
      this.child.kill('SIGTERM');
    }
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 15_000);
    await ended;
    clearTimeout(timer);
  }

  tail(lines = 30): string {
    return this.output.split('\n').slice(-lines).join('\n');
  }
}
