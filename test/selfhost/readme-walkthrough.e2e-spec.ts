// The README cannot rot: `npm start`'s launcher runs as on a fresh clone (development, no
// SMTP_OUTBOUND_URL, no WEBHOOK_ALLOW_PRIVATE_TARGETS, a fresh data directory), its ready block
// must match the README's, and the shell blocks of the README's walk-through run verbatim, in
// order, in one bash, with only the ports swapped for free ones (and the run's PostgreSQL and Redis).
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt, freePort, freshDatabase, isolatedRedis, Proc, ROOT } from './support';

const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** The text of a `## Heading` section, up to the next `## `. */
function section(heading: string): string {
  const start = README.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`README has no "## ${heading}" section`);
  const end = README.indexOf('\n## ', start + 1);
  return README.slice(start, end < 0 ? undefined : end);
}

function fenced(text: string, lang: string): string[] {
  return [...text.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]);
}

/** Replaces each key by its value; every key must occur (a renamed port fails loudly). */
function swap(text: string, ports: Record<string, string>): string {
  for (const [from, to] of Object.entries(ports)) {
    if (!text.includes(from)) throw new Error(`"${from}" does not occur in the README text`);
    text = text.split(from).join(to);
  }
  return text;
}

describe('README', () => {
  it('is short, links only files of the repository, and every doc', () => {
    expect(README.split('\n').length).toBeLessThanOrEqual(250);
    const links = [...README.matchAll(/\]\(([^)]+)\)/g)].map((m) => m[1]);
    for (const link of links) {
      expect(link).not.toMatch(/^[a-z]+:/i);
      expect(existsSync(join(ROOT, link.split('#')[0]))).toBe(true);
    }
    expect(README).not.toMatch(/<https?:/);
    const docs = readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md'));
    for (const doc of docs) expect(links).toContain(`docs/${doc}`);
    expect(links).toContain('docs/openapi.json');
  });
});

describe('README walk-through', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'mp-readme-'));
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  let launcher: Proc;
  let env: Record<string, string>;
  let ports: Record<string, number>;
  let block: string;

  beforeAll(async () => {
    ensureBuilt('api', 'worker', 'smtp-relay', 'dashboard');
    db = await freshDatabase();
    const [api, relay, inbound, health, catcherSmtp, catcherHttp, receiver] = await Promise.all(
      Array.from({ length: 7 }, freePort),
    );
    ports = { api, relay, inbound, catcherHttp, receiver };
    // A shell of a fresh clone: none of the e2e suite's settings (NODE_ENV=test, a fixed key,
    // WEBHOOK_ALLOW_PRIVATE_TARGETS) leak in.
    env = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? tmpdir(),
      DATABASE_URL: db.url,
      ...isolatedRedis(),
      DATA_DIR: dataDir,
      PORT: String(api),
      SMTP_PORT: String(relay),
      INBOUND_SMTP_PORT: String(inbound),
      WORKER_HEALTH_PORT: String(health),
      MAIL_CATCHER_SMTP_PORT: String(catcherSmtp),
      MAIL_CATCHER_HTTP_PORT: String(catcherHttp),
    };
    launcher = new Proc('npm start', process.execPath, ['scripts/start-all.js'], {
      cwd: ROOT,
      env,
      detached: true,
    });
    await launcher.line(/Ctrl-C stops everything/, 240_000);
    block = launcher.output.slice(launcher.output.indexOf('Messaging platform ready'));
  }, 600_000);

  afterAll(async () => {
    await launcher?.stop();
    await db?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const readmePorts = () => ({
    'localhost:3000': `localhost:${ports.api}`,
    'localhost:2525': `localhost:${ports.relay}`,
    'localhost:1080': `localhost:${ports.catcherHttp}`,
  });

  it('prints the ready block the README shows, after one ready line per app', () => {
    const shown = fenced(section('Two commands'), 'text')[0];
    const blockPorts = { ...readmePorts(), 'localhost:2526': `localhost:${ports.inbound}` };
    for (const line of swap(shown, blockPorts).split('\n').filter(Boolean)) {
      expect(block).toContain(line.trim());
    }
    expect(block).toMatch(/Next: npx mp-admin create-org/);
    for (const app of ['api', 'worker', 'smtp-relay']) {
      expect(launcher.output.match(new RegExp(`"msg":"${app} ready"`, 'g'))).toHaveLength(1);
    }
    expect(launcher.output).not.toMatch(/Mapped \{/);
  });

  it('runs every shell block of the walk-through, verbatim, in one bash', async () => {
    const script = swap(fenced(section('Walk-through'), 'bash').join('\n'), {
      ...readmePorts(),
      '127.0.0.1:4000': `127.0.0.1:${ports.receiver}`,
      'listen(4000,': `listen(${ports.receiver},`,
    });
    const bash = new Proc('walk-through', 'bash', ['-c', `set -euo pipefail\n${script}`], {
      cwd: ROOT,
      env,
      detached: true,
    });
    try {
      const code = await bash.exit(240_000);
      if (code !== 0) throw new Error(`the walk-through exited with ${code}:\n${bash.tail(60)}`);
    } finally {
      await bash.stop();
    }
    const out = bash.output;
    expect(out).toMatch(/opted_out/);
    expect(out).toMatch(/'Ada Lovelace'/);
    expect(out).toMatch(/^3$/m); // Ada and the two imported contacts are on the list
    expect(out).toMatch(/< 250 OK job_/);
    expect(out).toMatch(/^email\.delivered t=\d+,v1=[0-9a-f]{64} \d+ bytes$/m);
    expect(out).toMatch(/^campaign\.sent /m);
    expect(out).toMatch(/^49\.9$/m);
    expect(out).toMatch(/'TXT mp[0-9a-z]+\._domainkey\.acme\.test'/);
    expect(out).toMatch(/'CNAME bounces\.acme\.test'/);
    expect(out).toMatch(/^200$/m); // the one-click unsubscribe
    expect(out).toMatch(/\[ 'one-click' \]/);
    expect(out).toMatch(/^ana@acme\.test$/m);

    const inbox = (await (
      await fetch(`http://127.0.0.1:${ports.catcherHttp}/messages`)
    ).json()) as { subject: string; to: string[] }[];
    expect(inbox.map((m) => m.subject).sort()).toEqual([
      'Hello Ada',
      'Over SMTP',
      'Spring sale',
      'Spring sale',
      'Spring sale',
    ]);
  }, 300_000);
});
