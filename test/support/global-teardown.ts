// Once after the e2e run: drops every database of the run (the template and any file's clone a
// crashed worker left behind), removes the run's Bull keys from Redis, stops an embedded server.
import Redis from 'ioredis';
import { Client } from 'pg';
import { redisUrlOfWorker } from './urls';

export default async function globalTeardown(globalConfig: { maxWorkers: number }): Promise<void> {
  const { TEST_ADMIN_DATABASE_URL: adminUrl, TEST_RUN: run, TEST_BULL_PREFIX: bull } = process.env;
  if (adminUrl && run) {
    const admin = new Client({ connectionString: adminUrl });
    await admin.connect();
    try {
      const { rows } = await admin.query<{ datname: string }>(
        `SELECT datname FROM pg_database WHERE starts_with(datname, $1)`,
        [run],
      );
      for (const { datname } of rows)
        await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    } finally {
      await admin.end();
    }
  }
  if (bull) {
    for (let worker = 1; worker <= Math.max(1, globalConfig.maxWorkers); worker++) {
      const redis = new Redis(redisUrlOfWorker(worker), {
        lazyConnect: true,
        maxRetriesPerRequest: 1,
      });
      try {
        await redis.connect();
        for await (const keys of redis.scanStream({ match: `${bull}-*`, count: 1000 }))
          if ((keys as string[]).length) await redis.unlink(...(keys as string[]));
      } finally {
        redis.disconnect();
      }
    }
  }
  const embedded = (globalThis as { __EMBEDDED_PG__?: { stop(): Promise<void> } }).__EMBEDDED_PG__;
  if (embedded) await embedded.stop();
}
