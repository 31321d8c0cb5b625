// Development driver for the hostile-input sections: builds a ResilienceContext against the local
// PostgreSQL (its own database) and one Redis db, with the built api, worker and relay as child
// processes, an SMTP sink and a webhook receiver. The resilience harness replaces it in the suite.
import { ChildProcess, execFile, spawn } from 'node:child_process';
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client, Pool } from 'pg';
import { startSmtpSink } from '../sending/support/smtp-sink';
import { waitFor } from '../support/wait-for';
import type { OrgFixture, ResilienceContext } from './support/context';

const root = path.resolve(__dirname, '../..');
const dist = (app: string) => path.join(root, `dist/apps/${app}/apps/${app}/src/main.js`);

export interface DevOptions {
  database?: string;
  redisDb?: number;
  apiPort?: number;
  relayPort?: number;
  workerHealthPort?: number;
  logLevel?: 'debug' | 'info' | 'warn' | 'error';
}

export interface DevContext {
  ctx: ResilienceContext;
  stop(): Promise<void>;
}

async function ensureDatabase(adminUrl: string, name: string): Promise<void> {
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!found.rowCount) await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

export async function startDevContext(opts: DevOptions = {}): Promise<DevContext> {
  const database = opts.database ?? 'mp_fuzz_dev';
  const adminUrl =
    process.env.DEV_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  await ensureDatabase(adminUrl, database);
  const dbUrl = new URL(adminUrl);
  dbUrl.pathname = `/${database}`;

  const sink = await startSmtpSink();
  let received = 0;
  const receiver: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const receiverPort = (receiver.address() as AddressInfo).port;

  const apiPort = opts.apiPort ?? 3310;
  const relayPort = opts.relayPort ?? 2610;
  const inboundPort = relayPort + 1;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'development',
    DATABASE_URL: dbUrl.toString(),
    REDIS_URL: `redis://127.0.0.1:6379/${opts.redisDb ?? 3}`,
    BULL_PREFIX: `mp-${database}`,
    ENCRYPTION_KEY: 'dGVzdC1lbmNyeXB0aW9uLWtleS0zMi1ieXRlcy1vayE=',
    PORT: String(apiPort),
    SMTP_PORT: String(relayPort),
    INBOUND_SMTP_PORT: String(inboundPort),
    INBOUND_CONNECTIONS_PER_IP: '1000',
    INBOUND_MESSAGES_PER_IP_PER_MINUTE: '1000000',
    WORKER_HEALTH_PORT: String(opts.workerHealthPort ?? 3311),
    SMTP_OUTBOUND_URL: `smtp://127.0.0.1:${sink.port}`,
    SEND_IP_ALLOWLIST: '127.0.0.1,::1',
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    PUBLIC_BASE_URL: `http://127.0.0.1:${apiPort}`,
    DATA_DIR: path.join(tmpdir(), `mp-${database}`),
    LOG_LEVEL: opts.logLevel ?? 'warn',
    RUN_MIGRATIONS: 'false',
  };

  await promisify(execFile)(process.execPath, [path.join(root, 'scripts/migrate.js')], { env });

  const logs: string[] = [];
  const children: ChildProcess[] = [];
  for (const app of ['api', 'worker', 'smtp-relay']) {
    const child = spawn(process.execPath, [dist(app)], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    for (const stream of [child.stdout!, child.stderr!]) {
      let rest = '';
      stream.on('data', (chunk: Buffer) => {
        const lines = (rest + chunk.toString('utf8')).split('\n');
        rest = lines.pop() ?? '';
        for (const line of lines) if (line) logs.push(line);
      });
    }
    child.on('exit', (code, signal) => logs.push(`[dev-context] ${app} exited ${code} ${signal}`));
    children.push(child);
  }
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  await waitFor(async () => (await fetch(`${apiUrl}/health/live`)).ok, {
    what: 'api',
    timeoutMs: 60_000,
    everyMs: 250,
  });
  await waitFor(() => portOpen(relayPort), { what: 'relay', timeoutMs: 60_000, everyMs: 250 });
  await waitFor(() => portOpen(inboundPort), {
    what: 'inbound port',
    timeoutMs: 60_000,
    everyMs: 250,
  });

  const db = new Pool({ connectionString: dbUrl.toString(), max: 4 });

  const ctx: ResilienceContext = {
    apiUrl,
    relay: { host: '127.0.0.1', port: relayPort },
    inbound: { host: '127.0.0.1', port: inboundPort },
    encryptionKey: env.ENCRYPTION_KEY,
    sink: {
      port: sink.port,
      received: () => sink.messages.length,
      messages: () =>
        sink.messages.map((m) => ({ messageId: m.parsed.messageId, to: m.to, raw: m.raw })),
    },
    receiver: { url: `http://127.0.0.1:${receiverPort}/hook`, received: () => received },
    db,
    async createOrg(name: string): Promise<OrgFixture> {
      const admin = async (args: string[]) =>
        JSON.parse(
          (
            await promisify(execFile)(
              process.execPath,
              [path.join(root, 'scripts/admin.js'), ...args, '--json'],
              { env },
            )
          ).stdout,
        ) as Record<string, { id: string; name: string; key: string }>;
      const { organization } = await admin(['create-org', '--name', name]);
      // As generous as the harness's key: keys the modules create with it stay within its limits
      // (a key never grants more than it holds, §16).
      const { apiKey } = await admin([
        'create-key',
        '--org',
        organization.id,
        '--name',
        'resilience',
        '--scopes',
        'all',
        '--per-minute',
        '1000000',
      ]);
      return { id: organization.id, name: organization.name, apiKey: apiKey.key };
    },
    logs: () => logs,
  };

  return {
    ctx,
    async stop() {
      await Promise.all(
        children.map(
          (c) =>
            new Promise<void>((resolve) => {
              if (c.exitCode !== null || c.signalCode !== null) return resolve();
              c.once('exit', () => resolve());
              c.kill('SIGTERM');
            }),
        ),
      );
      await db.end();
      await sink.close();
      await new Promise<void>((r) => receiver.close(() => r()));
    },
  };
}
