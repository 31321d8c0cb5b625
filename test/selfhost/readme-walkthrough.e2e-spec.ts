// The README cannot rot: `npm start`'s launcher runs as on a fresh clone (development, no
// SMTP_OUTBOUND_URL, no WEBHOOK_ALLOW_PRIVATE_TARGETS, a fresh data directory), its ready block
// must match the README's, and the shell blocks of the README's walk-through run verbatim, in
// order, in one bash, with only the ports swapped for free ones (and the run's PostgreSQL and Redis).
// The same launcher's provider fakes take an SMS and two pushes from accounts connected with the
// add-provider lines its ready block prints, and the catcher's Channels page shows them.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '../support/wait-for';
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
    const [api, relay, inbound, health, catcherSmtp, catcherHttp, receiver, twilio, fcm, apns] =
      await Promise.all(Array.from({ length: 10 }, freePort));
    const [whatsapp, telegram, blooio, httpFake] = await Promise.all(
      Array.from({ length: 4 }, freePort),
    );
    ports = { api, relay, inbound, catcherHttp, receiver, twilio, fcm, apns };
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
      TWILIO_FAKE_PORT: String(twilio),
      FCM_FAKE_PORT: String(fcm),
      APNS_FAKE_PORT: String(apns),
      WHATSAPP_FAKE_PORT: String(whatsapp),
      TELEGRAM_FAKE_PORT: String(telegram),
      BLOOIO_FAKE_PORT: String(blooio),
      HTTP_PROVIDER_FAKE_PORT: String(httpFake),
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
      '.data/channel-fakes/': `${dataDir}/channel-fakes/`,
      '127.0.0.1:1081': `127.0.0.1:${ports.twilio}`,
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
    expect(out).toMatch(/^active$/m); // the Twilio fake's account
    expect(out).toMatch(/^Hello from the walk-through$/m); // the SMS the fake took
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

  it('starts the provider fakes: accounts connected with the printed lines send into them', async () => {
    const commands = block
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l.includes('npx mp-admin add-provider --org $ORG'));
    expect(commands.map((c) => c.match(/--provider (\w+)/)?.[1])).toEqual([
      'twilio',
      'fcm',
      'apns',
      'whatsapp',
      'telegram',
      'blooio',
      'http',
    ]);
    expect(block).toContain(`http://localhost:${ports.catcherHttp}/channels`);
    const script = [
      `json() { node -pe "JSON.parse(require('fs').readFileSync(0))$1"; }`,
      'CREATED=$(npx mp-admin create-org --name Fakes --with-key --json)',
      'ORG=$(echo "$CREATED" | json .organization.id)',
      'echo "key $(echo "$CREATED" | json .apiKey.key)"',
      ...commands.flatMap((c) => [
        `ID=$(${c} --json | json .channelProvider.id)`,
        'echo "provider $ID"',
      ]),
    ].join('\n');
    const bash = new Proc('add-provider', 'bash', ['-c', `set -euo pipefail\n${script}`], {
      cwd: ROOT,
      env,
      detached: true,
    });
    try {
      const code = await bash.exit(120_000);
      if (code !== 0)
        throw new Error(`the add-provider lines exited with ${code}:\n${bash.tail()}`);
    } finally {
      await bash.stop();
    }
    const key = bash.output.match(/^key (\S+)$/m)![1];
    const [sms, fcm, apns] = [...bash.output.matchAll(/^provider (\S+)$/gm)].map((m) => m[1]);

    const api = `http://localhost:${ports.api}/api/v1/user/channel-providers`;
    const test = async (id: string, body: Record<string, string>) => {
      const res = await fetch(`${api}/${id}/test`, {
        method: 'POST',
        headers: { 'X-API-Key': key, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const answer = (await res.json()) as { data: { outcome: string } };
      if (res.status !== 200) throw new Error(`test send: ${res.status} ${JSON.stringify(answer)}`);
      return answer.data.outcome;
    };
    expect(await test(sms, { to: '+14155550123', text: 'Hello from the fakes' })).toBe('accepted');
    expect(await test(fcm, { to: 'any-app-token', title: 'Via FCM', body: 'A push' })).toBe(
      'accepted',
    );
    expect(await test(apns, { to: 'ab'.repeat(32), title: 'Via APNs', body: 'A push' })).toBe(
      'accepted',
    );

    const catcher = `http://127.0.0.1:${ports.catcherHttp}`;
    type Taken = { provider: string; to: string; text?: string; title?: string; status?: string };
    let taken: Taken[] = [];
    // The walk-through's own SMS (to +447700900456) went through the same fake before.
    const ours = (all: Taken[]) => all.filter((m) => m.to !== '+447700900456');
    // The Twilio fake posts the SMS's status callbacks a second after the send, as Twilio does.
    await waitFor(
      async () => {
        taken = ours((await (await fetch(`${catcher}/channels/messages`)).json()) as Taken[]);
        return taken.find((m) => m.provider === 'twilio')?.status === 'delivered';
      },
      { what: 'the SMS delivered', everyMs: 250 },
    );
    expect(taken.map((m) => [m.provider, m.to, m.text ?? m.title]).sort()).toEqual([
      ['apns', 'ab'.repeat(32), 'Via APNs'],
      ['fcm', 'any-app-token', 'Via FCM'],
      ['twilio', '+14155550123', 'Hello from the fakes'],
    ]);
    const page = await (await fetch(`${catcher}/channels`)).text();
    for (const text of ['Hello from the fakes', 'Via FCM', 'Via APNs'])
      expect(page).toContain(text);
  }, 180_000);
});
