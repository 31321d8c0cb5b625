#!/usr/bin/env node
// Runs the whole platform: the embedded PostgreSQL when DATABASE_URL is unset, migrations once,
// then api, worker and smtp-relay as child processes. Ctrl-C stops all of them.
const { spawn } = require('node:child_process');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const dist = (app) => path.join(root, `dist/apps/${app}/apps/${app}/src/main.js`);
const log = (msg, extra = {}) =>
  process.stdout.write(JSON.stringify({ time: new Date().toISOString(), level: 'info', service: 'launcher', msg, ...extra }) + '\n');

function run(file, args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [file, ...args], { env, stdio: 'inherit' });
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${path.basename(file)} exited with ${code}`))));
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

async function main() {
  const env = { ...process.env };
  let stopDb = async () => undefined;
  if (!env.DATABASE_URL) {
    const db = await startDatabase(env);
    env.DATABASE_URL = db.url;
    stopDb = db.stop;
  }
  log('applying migrations');
  await run(path.join(root, 'scripts/migrate.js'), [], env);

  const children = ['api', 'worker', 'smtp-relay'].map((app) => {
    const child = spawn(process.execPath, [dist(app)], { env: { ...env, RUN_MIGRATIONS: 'false' }, stdio: 'inherit' });
    child.on('exit', (code, signal) => {
      log(`${app} exited`, { code, signal });
      if (!stopping) shutdown(1);
    });
    return child;
  });
  log('platform started', { api: `http://localhost:${env.PORT || 3000}`, smtp: Number(env.SMTP_PORT || 2525), inbound: Number(env.INBOUND_SMTP_PORT || 2526) });

  let stopping = false;
  async function shutdown(code) {
    if (stopping) return;
    stopping = true;
    for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
    await Promise.all(children.map((c) => (c.exitCode === null ? new Promise((r) => c.on('exit', r)) : null)));
    await stopDb().catch(() => undefined);
    process.exit(code);
  }
  process.on('SIGINT', () => shutdown(0));
  process.on('SIGTERM', () => shutdown(0));
}

main().catch((err) => {
  process.stderr.write(`could not start the platform: ${err.message}\n`);
  process.exit(1);
});
