#!/usr/bin/env node
// `npm start`: builds what is stale, starts the embedded PostgreSQL when DATABASE_URL is unset,
// applies migrations, then runs api, worker and smtp-relay as child processes and, once each has
// said "ready", prints where everything is. Ctrl-C stops the apps first, then the database.
//
// Outside production it also starts the development mail catcher (scripts/mail-catcher.js) and
// routes outbound mail to it unless SMTP_OUTBOUND_URL is set; starts the provider fakes of Twilio,
// FCM, APNs, WhatsApp, Telegram, Blooio and the http provider (scripts/channel-fakes.js), whose
// messages the catcher's Channels page shows; and lets webhooks and provider accounts target
// loopback unless WEBHOOK_ALLOW_PRIVATE_TARGETS is set.
// Production behaviour is the apps' own.
const { spawn } = require('node:child_process');
const { readFileSync } = require('node:fs');
const path = require('node:path');
const readline = require('node:readline');
const { build } = require('./build');
const { channelPages } = require('./catcher-channels');
const { addProviderCommand, startChannelFakes } = require('./channel-fakes');
const { startMailCatcher } = require('./mail-catcher');

const root = path.resolve(__dirname, '..');
const APPS = ['api', 'worker', 'smtp-relay'];
const dist = (app) => path.join(root, `dist/apps/${app}/apps/${app}/src/main.js`);
const log = (msg, extra = {}) =>
  process.stdout.write(
    JSON.stringify({
      time: new Date().toISOString(),
      level: 'info',
      service: 'launcher',
      msg,
      ...extra,
    }) + '\n',
  );

/** Runs a script to its end; resolves with its stdout. */
function run(file, args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [file, ...args], {
      env,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.on('exit', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`${path.basename(file)} exited with ${code}`)),
    );
  });
}

/**
 * The embedded PostgreSQL in its own detached process (scripts/embedded-db.js), so a Ctrl-C or
 * SIGTERM reaches the apps first and the server stops only once they have finished.
 */
function startDatabase(env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(root, 'scripts/embedded-db.js')], {
      env,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      detached: true,
    });
    const exited = new Promise((r) => child.once('exit', r));
    child.once('exit', (code, signal) => {
      log('embedded PostgreSQL process exited', { code, signal });
      reject(new Error(`the embedded PostgreSQL exited with ${code}`));
    });
    child.on('message', (m) => {
      if (m.log) log(m.log);
      else if (m.error) reject(new Error(m.error));
      else if (m.url) {
        resolve({
          url: m.url,
          stop: async () => {
            if (child.exitCode === null && child.connected) child.send({ stop: true });
            await exited;
          },
        });
      }
    });
  });
}

/** Starts one app; its log lines pass through, and `onReady` gets its "<app> ready" line. */
function startApp(app, env, onReady) {
  const child = spawn(process.execPath, [dist(app)], {
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  readline.createInterface({ input: child.stdout }).on('line', (line) => {
    process.stdout.write(line + '\n');
    if (!line.includes(`"${app} ready"`)) return;
    try {
      onReady(app, JSON.parse(line));
    } catch {
      // not a JSON line: only passed through
    }
  });
  return child;
}

function readyBlock(ready, env, catcher, fakes) {
  const api = ready.api.url;
  const mail = catcher?.smtpUrl
    ? `Mail catcher  ${catcher.webUrl}   (every email the platform sends lands here)`
    : `Outbound mail ${ready.worker.outbound}`;
  const lines = [
    `Messaging platform ready (${env.NODE_ENV || 'development'})`,
    `  API           ${api}/api/v1`,
    `  OpenAPI       ${api}/docs   (JSON: ${api}/docs/json)`,
    `  Dashboard     ${api}/dashboard`,
    `  SMTP relay    localhost:${ready['smtp-relay'].port}   (STARTTLS; password: an API key)`,
    `  Inbound SMTP  localhost:${ready['smtp-relay'].inboundPort}   (bounces, complaints, unsubscribes)`,
    `  ${mail}`,
  ];
  // The add-provider lines are long: the frame is as wide as the other lines.
  const wide = [];
  if (fakes) {
    lines.push(`  Channels      ${catcher.webUrl}/channels   (what the provider fakes received)`);
    wide.push(
      '',
      'Provider fakes: connect an organization ($ORG: its id) to them with',
      ...Object.values(fakes.accounts).map((a) => `  ${addProviderCommand(a)}`),
    );
  }
  const next = [
    '',
    'Next: npx mp-admin create-org --name Acme --with-key',
    '      then follow the walk-through in README.md. Ctrl-C stops everything.',
  ];
  const rule = '─'.repeat(Math.max(...[...lines, ...next].map((l) => l.length)) + 2);
  const all = [...lines, ...wide, ...next];
  return `${rule}\n${all.map((l) => ` ${l}`).join('\n')}\n${rule}\n`;
}

/**
 * PROVIDER_TLS_CA trusting the APNs fake's certificate too: a CA already given (PEM text or a
 * file) is kept, so a provider behind a private CA stays reachable.
 */
function withFakeCa(given, cert) {
  if (!given) return cert;
  const pem = given.trimStart().startsWith('-----BEGIN') ? given : readFileSync(given, 'utf8');
  return `${pem.trimEnd()}\n${cert}`;
}

async function main() {
  const env = { ...process.env };
  const production = env.NODE_ENV === 'production';
  build(undefined, { ifStale: true, log: (m) => log(m) });
  if (!production) build(['channel-fakes'], { ifStale: true, log: (m) => log(m) });

  let stopDb = async () => undefined;
  if (!env.DATABASE_URL) {
    const db = await startDatabase(env);
    env.DATABASE_URL = db.url;
    stopDb = db.stop;
  }
  const migrated = JSON.parse(
    await run(path.join(root, 'scripts/admin.js'), ['migrate', '--json'], env),
  );
  log('migrations applied', { count: migrated.migrated.length });

  let catcher = null;
  let fakes = null;
  if (!production) {
    fakes = await startChannelFakes({
      dataDir: path.resolve(env.DATA_DIR || './.data'),
      ports: {
        twilio: Number(env.TWILIO_FAKE_PORT || 1081),
        fcm: Number(env.FCM_FAKE_PORT || 1082),
        apns: Number(env.APNS_FAKE_PORT || 1083),
        whatsapp: Number(env.WHATSAPP_FAKE_PORT || 1084),
        telegram: Number(env.TELEGRAM_FAKE_PORT || 1085),
        blooio: Number(env.BLOOIO_FAKE_PORT || 1086),
        http: Number(env.HTTP_PROVIDER_FAKE_PORT || 1087),
      },
    });
    const urls = Object.fromEntries(Object.entries(fakes.accounts).map(([k, a]) => [k, a.url]));
    log('provider fakes ready', urls);
    // With SMTP_OUTBOUND_URL set, mail goes there: the catcher serves only its pages.
    const mailHere = !env.SMTP_OUTBOUND_URL;
    catcher = await startMailCatcher({
      smtpPort: mailHere ? Number(env.MAIL_CATCHER_SMTP_PORT || 1025) : null,
      httpPort: Number(env.MAIL_CATCHER_HTTP_PORT || 1080),
      channels: channelPages(fakes),
    });
    if (mailHere) env.SMTP_OUTBOUND_URL = catcher.smtpUrl;
    log('mail catcher ready', { smtp: catcher.smtpUrl, url: catcher.webUrl });
    // Provider accounts reach the fakes on loopback, which is refused like a webhook's private
    // target unless WEBHOOK_ALLOW_PRIVATE_TARGETS; the APNs fake speaks TLS with a self-signed
    // certificate, which api and worker trust through PROVIDER_TLS_CA.
    env.PROVIDER_TLS_CA = withFakeCa(env.PROVIDER_TLS_CA, fakes.tlsCa);
  }
  if (!production && env.WEBHOOK_ALLOW_PRIVATE_TARGETS === undefined)
    env.WEBHOOK_ALLOW_PRIVATE_TARGETS = 'true';

  let stopping = false;
  const ready = {};
  const onReady = (app, line) => {
    ready[app] = line;
    if (Object.keys(ready).length === APPS.length)
      process.stdout.write(readyBlock(ready, env, catcher, fakes));
  };
  const children = APPS.map((app) => {
    const child = startApp(app, { ...env, RUN_MIGRATIONS: 'false' }, onReady);
    child.on('exit', (code, signal) => {
      log(`${app} exited`, { code, signal });
      if (!stopping) void shutdown(1);
    });
    return child;
  });

  async function shutdown(code) {
    if (stopping) return;
    stopping = true;
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGTERM');
    await Promise.all(
      children.map((c) =>
        c.exitCode === null && c.signalCode === null ? new Promise((r) => c.on('exit', r)) : null,
      ),
    );
    await catcher?.close();
    await fakes?.close();
    await stopDb().catch(() => undefined);
    process.exit(code);
  }
  process.on('SIGINT', () => void shutdown(0));
  process.on('SIGTERM', () => void shutdown(0));
}

main().catch((err) => {
  process.stderr.write(`could not start the platform: ${err.message}\n`);
  process.exit(1);
});
