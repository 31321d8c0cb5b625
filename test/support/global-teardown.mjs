import { existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

export default async function globalTeardown() {
  const state = join(tmpdir(), `mp-test-state-${process.pid}.json`);
  if (existsSync(state)) {
    const { adminUrl, dbName } = JSON.parse(readFileSync(state, 'utf8'));
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`).catch(() => undefined);
    await admin.end();
    rmSync(state, { force: true });
  }
  if (globalThis.__EMBEDDED_PG__) await globalThis.__EMBEDDED_PG__.stop();
}
