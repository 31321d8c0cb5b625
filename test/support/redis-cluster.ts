// A Redis Cluster of three masters for a test: Debian's redis-server on free loopback ports, in a
// temporary directory, joined with `redis-cli --cluster create`. Silent unless something fails.
//
//   const cluster = await startRedisCluster();
//   process.env.REDIS_URL = cluster.url;   // redis+cluster://127.0.0.1:a,127.0.0.1:b,127.0.0.1:c
//   await cluster.stopNode(1);             // SIGTERM one master: its slots are down
//   await cluster.startNode(1);            // the same node again, back in the cluster
//   await cluster.stop();                  // every node gone, the directory removed
import { ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { waitFor } from './wait-for';

const REDIS_SERVER = '/usr/bin/redis-server';
const REDIS_CLI = '/usr/bin/redis-cli';
/** Bus port of a node: its port + 10000, as Redis Cluster has it. */
const BUS_OFFSET = 10_000;
/** How soon the other masters see a stopped one as failed (the cluster then answers CLUSTERDOWN). */
const NODE_TIMEOUT_MS = 2000;

const run = promisify(execFile);

export interface RedisCluster {
  /** REDIS_URL of the cluster: its masters as seed nodes. */
  url: string;
  /** The masters' ports, in the order of `url`. */
  ports: number[];
  /** Stops every node and removes their files. */
  stop(): Promise<void>;
  /** Stops master `i` (SIGTERM) and waits until it has exited. */
  stopNode(i: number): Promise<void>;
  /** Starts master `i` again with its files and waits until the whole cluster is ok. */
  startNode(i: number): Promise<void>;
  /** The index of the master that serves `key`'s hash slot. */
  masterOf(key: string): Promise<number>;
}

function listenable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/** A free port whose bus port is free too. */
async function freePort(taken: number[]): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 30_000);
    if (taken.some((p) => p === port || Math.abs(p - port) === BUS_OFFSET)) continue;
    if ((await listenable(port)) && (await listenable(port + BUS_OFFSET))) return port;
  }
  throw new Error('no free port pair for a Redis Cluster node');
}

async function cli(port: number, ...args: string[]): Promise<string> {
  const { stdout } = await run(REDIS_CLI, ['-h', '127.0.0.1', '-p', String(port), ...args]);
  return stdout;
}

/** Starts a cluster of `masters` masters (three unless said) without replicas. */
export async function startRedisCluster(masters = 3): Promise<RedisCluster> {
  if (!existsSync(REDIS_SERVER) || !existsSync(REDIS_CLI)) {
    throw new Error(`Redis Cluster tests need ${REDIS_SERVER} and ${REDIS_CLI} (apt redis-server)`);
  }
  const dir = mkdtempSync(join(tmpdir(), 'mp-redis-cluster-'));
  const ports: number[] = [];
  for (let i = 0; i < masters; i++) ports.push(await freePort(ports));
  const nodes: (ChildProcess | undefined)[] = [];

  const startProcess = (i: number) => {
    const nodeDir = join(dir, `node-${i}`);
    mkdirSync(nodeDir, { recursive: true, mode: 0o700 });
    const child = spawn(
      REDIS_SERVER,
      [
        '--port',
        String(ports[i]),
        '--bind',
        '127.0.0.1',
        '--dir',
        nodeDir,
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        'nodes.conf',
        '--cluster-node-timeout',
        String(NODE_TIMEOUT_MS),
        '--save',
        '',
        '--appendonly',
        'no',
        '--logfile',
        join(nodeDir, 'redis.log'),
      ],
      { stdio: 'ignore' },
    );
    nodes[i] = child;
  };
  const killAll = () => nodes.forEach((n) => n?.kill('SIGKILL'));
  process.once('exit', killAll);

  const clusterOk = () =>
    waitFor(
      async () => {
        for (const port of ports) {
          if (!(await cli(port, 'cluster', 'info')).includes('cluster_state:ok')) return false;
        }
        return true;
      },
      { what: 'cluster_state:ok on every Redis Cluster node', timeoutMs: 20_000, everyMs: 50 },
    );
  const answers = (port: number) =>
    waitFor(async () => (await cli(port, 'ping')).includes('PONG'), {
      what: `redis-server on ${port}`,
      everyMs: 20,
    });

  const stopNode = async (i: number) => {
    const child = nodes[i];
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
    nodes[i] = undefined;
  };

  try {
    ports.forEach((_, i) => startProcess(i));
    for (const port of ports) await answers(port);
    await run(REDIS_CLI, [
      '--cluster',
      'create',
      ...ports.map((p) => `127.0.0.1:${p}`),
      '--cluster-replicas',
      '0',
      '--cluster-yes',
    ]);
    await clusterOk();
  } catch (e) {
    killAll();
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }

  return {
    url: `redis+cluster://${ports.map((p) => `127.0.0.1:${p}`).join(',')}`,
    ports,
    stopNode,
    async startNode(i) {
      if (nodes[i]) return;
      startProcess(i);
      await answers(ports[i]);
      await clusterOk();
    },
    async masterOf(key) {
      const slot = Number(await cli(ports[0], 'cluster', 'keyslot', key));
      for (const [i, port] of ports.entries()) {
        // CLUSTER NODES: the node's own line ends with its slot ranges ("0-5460", "5461").
        const own = (await cli(port, 'cluster', 'nodes'))
          .split('\n')
          .find((l) => l.includes('myself'));
        const ranges = (own ?? '').trim().split(' ').slice(8);
        for (const range of ranges) {
          const [from, to = from] = range.split('-').map(Number);
          if (slot >= from && slot <= to) return i;
        }
      }
      throw new Error(`no master serves slot ${slot}`);
    },
    async stop() {
      await Promise.all(ports.map((_, i) => stopNode(i)));
      process.removeListener('exit', killAll);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
