// A real worker PROCESS started from its TypeScript sources (no build step), listening for
// /health on a port of its own: for tests that need the worker apart from the test's process.
import { ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import request from 'supertest';
import { waitFor } from '../../support/wait-for';

const ROOT = resolve(__dirname, '../../..');

export interface WorkerProcess {
  child: ChildProcess;
  healthUrl: string;
  /** What the process wrote to stderr (for a failing test's message). */
  stderr(): string;
  /** SIGKILL, then waits for the exit. */
  kill(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

/** Starts the worker with the current environment plus `env`; resolves once /health answers. */
export async function spawnWorker(env: Record<string, string> = {}): Promise<WorkerProcess> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    ['-r', join(ROOT, 'test/imports/ts-register.js'), join(ROOT, 'apps/worker/src/main.ts')],
    {
      cwd: ROOT,
      env: { ...process.env, WORKER_HEALTH_PORT: String(port), LOG_LEVEL: 'error', ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const exited = new Promise<void>((done) => {
    if (child.exitCode !== null || child.signalCode !== null) return done();
    child.once('exit', () => done());
  });
  const worker: WorkerProcess = {
    child,
    healthUrl: `http://127.0.0.1:${port}`,
    stderr: () => stderr,
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
  try {
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`worker exited at start: ${stderr}`);
        const res = await request(worker.healthUrl).get('/health').timeout(2000);
        return res.status === 200;
      },
      { what: 'the worker to answer /health', timeoutMs: 60_000, everyMs: 100 },
    );
  } catch (err) {
    await worker.kill();
    throw new Error(`${(err as Error).message}\n${stderr}`);
  }
  return worker;
}
