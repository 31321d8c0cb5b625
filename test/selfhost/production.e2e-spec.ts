// The Docker path without Docker: the built api, worker and relay run with the environment of
// docker/compose.yml (read from the file), the key docker/init writes, as an unprivileged user and
// on a fresh data directory. Only what a container network provides differently is replaced:
// the database and Redis addresses, the ports, the data volume's path, the DNS resolver (a
// loopback server holding the sending domain's records) and the outbound SMTP server (a local
// catcher: a test sends no mail outside). Then an import completes (the api writes the file, the
// worker reads it), a sending domain is verified as production requires, and a client sends
// through the relay with STARTTLS and AUTH: the message arrives DKIM-signed.
import { execFileSync, spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
} from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTransport } from 'nodemailer';
import { namedMounts, readCompose, serviceEnv } from './compose';
import { publish } from '../sending-domains/support';
import { TestDnsServer } from '../support/dns-server';
import { waitFor } from '../support/wait-for';
import { ensureBuilt, freePort, freshDatabase, isolatedRedis, Proc, ROOT } from './support';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startMailCatcher } = require('../../scripts/mail-catcher.js') as {
  startMailCatcher(opts: { smtpPort: number; httpPort: number }): Promise<{
    smtpUrl: string;
    webUrl: string;
    close(): Promise<void>;
  }>;
};

const APPS = ['api', 'worker', 'smtp-relay'] as const;
/** Run as `nobody` when the tests run as root (as the image runs as `node`). */
const asRoot = process.getuid?.() === 0;
const NOBODY = 65534;
const user = asRoot ? { uid: NOBODY, gid: NOBODY } : {};

/** An address of this machine that is not loopback: the relay treats such clients as remote. */
function remoteAddress(): string | undefined {
  return Object.values(networkInterfaces())
    .flat()
    .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;
}

function dockerCompose(): string[] | null {
  if (spawnSync('docker', ['compose', 'version'], { stdio: 'ignore' }).status === 0) {
    return ['docker', 'compose'];
  }
  if (spawnSync('docker-compose', ['version'], { stdio: 'ignore' }).status === 0) {
    return ['docker-compose'];
  }
  return null;
}

describe('production mode, with the environment of docker/compose.yml', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'mp-selfhost-'));
  const envFile = join(scratch, '.env');
  const dataDir = join(scratch, 'data');
  const procs: Proc[] = [];
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  let catcher: Awaited<ReturnType<typeof startMailCatcher>>;
  let dns: TestDnsServer | undefined;
  let env: Record<string, string>;
  let apiUrl: string;
  let smtpPort: number;

  const initOutput = () => execFileSync('sh', [join(ROOT, 'docker/init'), envFile]).toString();
  const dotEnv = () =>
    Object.fromEntries(
      readFileSync(envFile, 'utf8')
        .split('\n')
        .filter((l) => l.includes('='))
        .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
    ) as Record<string, string>;

  let initRuns: string[];

  beforeAll(async () => {
    ensureBuilt(...APPS);
    // The image runs as `node`; here `nobody` must reach the data directory inside the scratch one.
    chmodSync(scratch, 0o755);
    initRuns = [initOutput()];
    initRuns.push(initOutput());
  }, 600_000);

  afterAll(async () => {
    await Promise.all(procs.map((p) => p.stop()));
    await catcher?.close();
    await dns?.stop();
    await db?.drop();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('docker/init writes the key once; compose reads it and declares the volumes and PostgreSQL settings', () => {
    expect(initRuns[0]).toMatch(/added ENCRYPTION_KEY POSTGRES_PASSWORD REDIS_PASSWORD/);
    const first = dotEnv();
    expect(Buffer.from(first.ENCRYPTION_KEY, 'base64')).toHaveLength(32);
    expect(initRuns[1]).toMatch(/nothing changed/);
    expect(initOutput()).toMatch(/nothing changed/);
    expect(dotEnv()).toEqual(first);

    expect(() => readCompose({})).toThrow(/ENCRYPTION_KEY|POSTGRES_PASSWORD|REDIS_PASSWORD/);
    expect(() => readCompose({ ...first, REDIS_PASSWORD: undefined })).toThrow(/REDIS_PASSWORD/);
    expect(first.REDIS_PASSWORD).toMatch(/^[0-9a-f]{48}$/);
    const file = readCompose(first);
    for (const app of ['migrate', ...APPS]) {
      const e = serviceEnv(file, app);
      expect(e).toMatchObject({
        NODE_ENV: 'production',
        ENCRYPTION_KEY: first.ENCRYPTION_KEY,
        REDIS_URL: `redis://:${first.REDIS_PASSWORD}@redis:6379`,
      });
      // api and worker (and the relay, for its certificate) share one volume at DATA_DIR.
      expect(namedMounts(file, app)).toEqual({ appdata: e.DATA_DIR });
    }
    expect(file.services.postgres.command).toEqual(
      expect.arrayContaining([
        'max_wal_size=8GB',
        'checkpoint_timeout=30min',
        'bgwriter_lru_maxpages=1000',
        'wal_compression=lz4',
      ]),
    );
    // Redis asks every client for the password the apps' REDIS_URL carries.
    expect(file.services.redis.command).toEqual(
      expect.arrayContaining(['--requirepass', first.REDIS_PASSWORD]),
    );
    const dockerfile = readFileSync(join(ROOT, 'docker/Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/^FROM node:22-/m);
    // The api, the relay's submission port and its inbound (MX) port.
    expect(dockerfile).toMatch(/^EXPOSE 3000 2525 2526$/m);

    const compose = dockerCompose();
    if (!compose) {
      process.stdout.write('docker compose is not installed here: `config -q` not run\n');
      return;
    }
    const [cmd, ...args] = compose;
    const check = spawnSync(
      cmd,
      [...args, '-f', join(ROOT, 'docker/compose.yml'), '--env-file', envFile, 'config', '-q'],
      { encoding: 'utf8' },
    );
    expect(check.stderr).toBe('');
    expect(check.status).toBe(0);
  });

  it('starts api, worker and relay as an unprivileged user; an import completes and the relay takes STARTTLS + AUTH + a message', async () => {
    if (!asRoot) {
      process.stdout.write('not running as root: the processes run as the current user\n');
    }
    const [ports, database, redis] = await Promise.all([
      Promise.all([freePort(), freePort(), freePort(), freePort()]),
      freshDatabase(),
      Promise.resolve(isolatedRedis()),
    ]);
    db = database;
    catcher = await startMailCatcher({ smtpPort: 0, httpPort: 0 });
    const [port, healthPort, relayPort, inboundPort] = ports;
    dns = await new TestDnsServer().start();
    smtpPort = relayPort;
    apiUrl = `http://127.0.0.1:${port}`;
    execFileSync('mkdir', ['-p', dataDir]);
    if (asRoot) chownSync(dataDir, NOBODY, NOBODY);

    const file = readCompose(dotEnv());
    const composed = serviceEnv(file, 'api');
    // What a container network provides differently; everything else is the file's.
    const replaced = {
      DATABASE_URL: db.url,
      REDIS_URL: redis.REDIS_URL,
      DATA_DIR: dataDir,
      SMTP_OUTBOUND_URL: catcher.smtpUrl,
      DNS_SERVERS: dns.address,
    };
    for (const name of Object.keys(replaced)) expect(composed).toHaveProperty(name);
    const envOf = (service: string) => ({
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      ...serviceEnv(file, service),
      ...replaced,
      BULL_PREFIX: redis.BULL_PREFIX,
      PORT: String(port),
      WORKER_HEALTH_PORT: String(healthPort),
      SMTP_PORT: String(relayPort),
      INBOUND_SMTP_PORT: String(inboundPort),
    });
    env = envOf('api');
    const start = (service: string) => {
      const [node, ...args] = file.services[service].command!;
      expect(node).toBe('node');
      const proc = new Proc(service, process.execPath, args, {
        cwd: ROOT,
        env: envOf(service),
        ...user,
      });
      procs.push(proc);
      return proc;
    };

    expect(await start('migrate').exit()).toBe(0);
    const [api, worker, relay] = APPS.map(start);
    await Promise.all([
      api.line(/"msg":"api ready"/),
      worker.line(/"msg":"worker ready"/),
      relay.line(/"msg":"smtp-relay ready".*"starttls":"self-signed certificate"/),
    ]);
    // Nest's route and module lines are debug lines: start-up says little, at info level.
    expect(api.output).not.toMatch(/Mapped \{/);
    expect(api.output.trim().split('\n').length).toBeLessThan(10);
    expect(relay.output).toMatch(/"level":"warn".*SMTP_TLS_CERT and SMTP_TLS_KEY are unset/);
    const cert = join(dataDir, 'smtp-tls/cert.pem');
    expect(existsSync(cert)).toBe(true);
    if (asRoot) expect(statSync(cert).uid).toBe(NOBODY);

    const admin = new Proc(
      'admin',
      process.execPath,
      ['scripts/admin.js', 'create-org', '--name', 'Selfhost', '--with-key', '--json'],
      {
        cwd: ROOT,
        env,
        ...user,
      },
    );
    expect(await admin.exit()).toBe(0);
    const created = JSON.parse(admin.output.split('\n').find((l) => l.startsWith('{'))!) as {
      apiKey: { key: string };
    };
    const key = created.apiKey.key;
    const headers = { 'X-API-Key': key };

    // The api stores the upload under DATA_DIR; the worker reads it from there.
    const form = new FormData();
    form.append(
      'file',
      new Blob(['Email,First\nana@selfhost.test,Ana\nbo@selfhost.test,Bo\n']),
      'people.csv',
    );
    const upload = await fetch(`${apiUrl}/api/v1/user/contact-imports`, {
      method: 'POST',
      headers,
      body: form,
    });
    expect(upload.status).toBe(201);
    const importId = ((await upload.json()) as { data: { import: { id: string } } }).data.import.id;
    const started = await fetch(`${apiUrl}/api/v1/user/contact-imports/${importId}/start`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({
        consentConfirmed: true,
        duplicateHandling: 'skip',
        fieldMappings: [
          { csvHeader: 'Email', serviceField: 'email' },
          { csvHeader: 'First', serviceField: 'firstName' },
        ],
      }),
    });
    expect(started.status).toBe(202);
    const done = await waitFor(
      async () => {
        const { data } = (await (
          await fetch(`${apiUrl}/api/v1/user/contact-imports/${importId}`, { headers })
        ).json()) as { data: { import: { status: string; newCount: number } } };
        return !['queued', 'processing', 'uploaded'].includes(data.import.status) && data.import;
      },
      { what: 'the import to end', timeoutMs: 30_000, everyMs: 200 },
    );
    expect(done).toMatchObject({ status: 'completed', newCount: 2 });

    // Production sends only From verified domains (SENDING_DOMAIN_POLICY=require): the operator
    // adds the domain, publishes its records and verifies it.
    const json = { ...headers, 'content-type': 'application/json' };
    const added = await fetch(`${apiUrl}/api/v1/user/sending-domains`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ name: 'selfhost.test' }),
    });
    expect(added.status).toBe(201);
    const domain = ((await added.json()) as { data: Parameters<typeof publish>[1] }).data;
    publish(dns, domain);
    const verified = await fetch(`${apiUrl}/api/v1/user/sending-domains/${domain.id}/verify`, {
      method: 'POST',
      headers,
    });
    expect(((await verified.json()) as { data: { status: string } }).data.status).toBe('verified');

    // From an address that is not loopback, AUTH without TLS is refused; STARTTLS then AUTH works.
    const host = remoteAddress() ?? '127.0.0.1';
    if (host === '127.0.0.1')
      process.stdout.write('no address besides loopback: relay checked on 127.0.0.1\n');
    const transport = (tls: boolean) =>
      createTransport({
        host,
        port: smtpPort,
        secure: false,
        ...(tls ? { requireTLS: true, tls: { rejectUnauthorized: false } } : { ignoreTLS: true }),
        auth: { user: 'any', pass: key },
      });
    const mail = {
      from: 'news@selfhost.test',
      to: 'ana@selfhost.test',
      subject: 'Through the relay',
      text: 'Hello over STARTTLS',
    };
    if (host !== '127.0.0.1') {
      await expect(transport(false).sendMail(mail)).rejects.toMatchObject({ responseCode: 538 });
    }
    const info = await transport(true).sendMail(mail);
    expect(info.response).toMatch(/^250 OK job_/);
    const inbox = await waitFor(
      async () => {
        const messages = (await (await fetch(`${catcher.webUrl}/messages`)).json()) as {
          id: string;
          subject: string;
        }[];
        return messages.length > 0 && messages;
      },
      { what: 'the relayed message at the catcher', timeoutMs: 30_000, everyMs: 200 },
    );
    expect(inbox.map((m) => m.subject)).toEqual(['Through the relay']);
    const received = (await (await fetch(`${catcher.webUrl}/messages/${inbox[0].id}`)).json()) as {
      headers: Record<string, string>;
    };
    // The catcher shows a structured header as JSON: its params are the signature's tags.
    const signature = JSON.parse(received.headers['dkim-signature']) as {
      params: Record<string, string>;
    };
    expect(signature.params).toMatchObject({ a: 'rsa-sha256', d: 'selfhost.test' });
  }, 240_000);
});
