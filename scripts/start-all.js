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

async function main() {
  const env = { ...process.env };
  let stopDb = async () => undefined;
  if (!env.DATABASE_URL) {
    const { startEmbeddedPostgres } = require(path.join(root, 'dist/apps/api/libs/domain/src/database/embedded-postgres.js'));
    const dataDir = path.resolve(env.DATA_DIR || './.data');
    const handle = await startEmbeddedPostgres(dataDir, Number(env.EMBEDDED_PG_PORT || 54329), (m) => log(m));
    env.DATABASE_URL = handle.url;
    stopDb = handle.stop;
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
  log('platform started', { api: `http://localhost:${env.PORT || 3000}`, smtp: Number(env.SMTP_PORT || 2525) });

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
