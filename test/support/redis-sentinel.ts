// A Redis Sentinel group for a test: a master, its replica and one sentinel watching them as `mp`,
// Debian's redis-server on free loopback ports in a temporary directory, nothing persisted.
// Silent unless something fails.
//
//   const group = await startRedisSentinel();
//   process.env.REDIS_URL = group.url;   // redis+sentinel://127.0.0.1:<sentinel>/mp
//   await group.failover();              // the replica is the master, the former master its replica
//   await group.stop();                  // every process gone, the directory removed
import { ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { waitFor } from './wait-for';

const REDIS_SERVER = '/usr/bin/redis-server';
const REDIS_CLI = '/usr/bin/redis-cli';
const MASTER_NAME = 'mp';

const run = promisify(execFile);

export interface RedisSentinel {
  /** REDIS_URL of the group: its sentinel and the master's name. */
  url: string;
  /** Port of the server the sentinel names as master. */
  masterPort(): Promise<number>;
  /** SENTINEL FAILOVER, then waits until the sentinel names the former replica as master. */
  failover(): Promise<void>;
  /** Stops every process and removes their files. */
  stop(): Promise<void>;
}

function freePort(taken: number[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() =>
        taken.includes(port) ? freePort(taken).then(resolve, reject) : resolve(port),
      );
    });
  });
}

async function cli(port: number, ...args: string[]): Promise<string> {
  const { stdout } = await run(REDIS_CLI, ['-h', '127.0.0.1', '-p', String(port), ...args]);
  return stdout;
}

/** `INFO replication` of a server, as `field: value`. */
async function replication(port: number): Promise<Record<string, string>> {
  const info = await cli(port, 'info', 'replication');
  return Object.fromEntries(
    info
      .split(/\r?\n/)
      .filter((line) => line.includes(':'))
      .map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1)]),
  );
}

/** Starts a master, a replica of it and a sentinel monitoring them. */
export async function startRedisSentinel(): Promise<RedisSentinel> {
  if (!existsSync(REDIS_SERVER) || !existsSync(REDIS_CLI)) {
    throw new Error(
      `Redis Sentinel tests need ${REDIS_SERVER} and ${REDIS_CLI} (apt redis-server)`,
    );
  }
  const dir = mkdtempSync(join(tmpdir(), 'mp-redis-sentinel-'));
  const ports: number[] = [];
  for (let i = 0; i < 3; i++) ports.push(await freePort(ports));
  const [master, replica, sentinel] = ports;
  const children: ChildProcess[] = [];

  const server = (name: string, args: string[]) => {
    const child = spawn(
      REDIS_SERVER,
      [...args, '--bind', '127.0.0.1', '--dir', dir, '--logfile', join(dir, `${name}.log`)],
      { stdio: 'ignore' },
    );
    children.push(child);
  };
  const data = (port: number) => [
    '--port',
    String(port),
    '--save',
    '',
    '--appendonly',
    'no',
    '--dbfilename',
    `dump-${port}.rdb`,
  ];
  const killAll = () => children.forEach((c) => c.kill('SIGKILL'));
  process.once('exit', killAll);

  const sentinelMaster = async () => {
    const [, port] = (await cli(sentinel, 'sentinel', 'get-master-addr-by-name', MASTER_NAME))
      .trim()
      .split(/\r?\n/);
    return Number(port);
  };

  try {
    server('master', data(master));
    server('replica', [...data(replica), '--replicaof', '127.0.0.1', String(master)]);
    await waitFor(async () => (await replication(replica)).master_link_status === 'up', {
      what: 'the replica in sync with the master',
      everyMs: 50,
    });
    // The sentinel rewrites its configuration file: it must be its own, writable.
    const conf = join(dir, 'sentinel.conf');
    writeFileSync(
      conf,
      [
        `port ${sentinel}`,
        `sentinel monitor ${MASTER_NAME} 127.0.0.1 ${master} 1`,
        `sentinel down-after-milliseconds ${MASTER_NAME} 1000`,
        `sentinel failover-timeout ${MASTER_NAME} 3000`,
        '',
      ].join('\n'),
      { mode: 0o600 },
    );
    server('sentinel', [conf, '--sentinel']);
    // Failover needs the sentinel to know the replica (learned from the master's INFO).
    await waitFor(
      async () =>
        (await cli(sentinel, 'sentinel', 'replicas', MASTER_NAME)).includes(`127.0.0.1:${replica}`),
      { what: 'the sentinel seeing the replica', everyMs: 50 },
    );
  } catch (e) {
    killAll();
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }

  return {
    url: `redis+sentinel://127.0.0.1:${sentinel}/${MASTER_NAME}`,
    masterPort: sentinelMaster,
    async failover() {
      const before = await sentinelMaster();
      const after = before === master ? replica : master;
      // Refused (NOGOODSLAVE) until the sentinel has fresh INFO from the replica.
      await waitFor(
        async () => (await cli(sentinel, 'sentinel', 'failover', MASTER_NAME)).trim() === 'OK',
        { what: 'the sentinel starting a failover', everyMs: 100 },
      );
      await waitFor(async () => (await sentinelMaster()) === after, {
        what: `the sentinel naming ${after} as master`,
        everyMs: 50,
      });
    },
    async stop() {
      await Promise.all(
        children.map(
          (child) =>
            new Promise<void>((resolve) => {
              if (child.exitCode !== null || child.signalCode !== null) return resolve();
              child.once('exit', () => resolve());
              child.kill('SIGTERM');
            }),
        ),
      );
      process.removeListener('exit', killAll);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
