// The environment of one e2e file: its own database, cloned from the run's migrated template, its
// own Bull prefix (hence its own queues and webhook wake-up channel) and its worker's Redis
// database, so no file sees another's work. The database is dropped when the file ends.
import { TestEnvironment } from 'jest-environment-node';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { databaseUrl, redisUrlOfWorker } from './urls';

async function admin(sql: string): Promise<void> {
  const client = new Client({ connectionString: process.env.TEST_ADMIN_DATABASE_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

export default class FileEnvironment extends TestEnvironment {
  private database?: string;

  async setup(): Promise<void> {
    await super.setup();
    const { TEST_ADMIN_DATABASE_URL, TEST_RUN, TEST_TEMPLATE_DATABASE, TEST_BULL_PREFIX } =
      process.env;
    if (!TEST_ADMIN_DATABASE_URL || !TEST_RUN || !TEST_TEMPLATE_DATABASE || !TEST_BULL_PREFIX)
      throw new Error('the e2e global setup did not run');
    const tag = randomBytes(4).toString('hex');
    const database = `${TEST_RUN}_${tag}`;
    await admin(`CREATE DATABASE "${database}" TEMPLATE "${TEST_TEMPLATE_DATABASE}"`);
    this.database = database;
    Object.assign(this.global.process.env, {
      NODE_ENV: 'test',
      DATABASE_URL: databaseUrl(TEST_ADMIN_DATABASE_URL, database),
      TEST_DATABASE_NAME: database,
      BULL_PREFIX: `${TEST_BULL_PREFIX}-${tag}`,
      REDIS_URL: redisUrlOfWorker(Number(process.env.JEST_WORKER_ID ?? 1)),
      ENCRYPTION_KEY: process.env.ENCRYPTION_KEY || 'dGVzdC1lbmNyeXB0aW9uLWtleS0zMi1ieXRlcy1vayE=',
      LOG_LEVEL: process.env.LOG_LEVEL || 'error',
      // The template is migrated: apps start without checking.
      RUN_MIGRATIONS: 'false',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      DATA_DIR: process.env.DATA_DIR || join(tmpdir(), 'mp-test-data'),
    });
  }

  async teardown(): Promise<void> {
    if (this.database) await admin(`DROP DATABASE IF EXISTS "${this.database}" WITH (FORCE)`);
    await super.teardown();
  }
}
