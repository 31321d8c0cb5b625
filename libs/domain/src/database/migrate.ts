// Applies the migrations: the main chain, and the engagement chain on its own database.
import { DataSource } from 'typeorm';
import { ENGAGEMENT_MIGRATIONS, MIGRATIONS_TABLE } from './migrations';

const MIGRATION_LOCK = 7_361_100_001;

/** Runs pending migrations under an advisory lock, so concurrent starts never race. */
export async function runMigrations(ds: DataSource): Promise<string[]> {
  const runner = ds.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    const done = await ds.runMigrations({ transaction: 'each' });
    return done.map((m) => m.name);
  } finally {
    await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    await runner.release();
  }
}

/**
 * Runs the engagement chain against `engagementUrl` when it is set and differs from `mainUrl`
 * (the main chain already holds it). The migrations table is the main chain's, so a URL that
 * reaches the main database another way finds the migration applied.
 */
export async function migrateEngagementDatabase(
  engagementUrl: string | undefined,
  mainUrl: string,
): Promise<string[]> {
  if (!engagementUrl || engagementUrl === mainUrl) return [];
  const ds = new DataSource({
    type: 'postgres',
    url: engagementUrl,
    migrations: ENGAGEMENT_MIGRATIONS,
    migrationsTableName: MIGRATIONS_TABLE,
    migrationsTransactionMode: 'each',
    synchronize: false,
    logging: false,
    extra: { max: 2, connectionTimeoutMillis: 5000 },
  });
  await ds.initialize();
  try {
    return await runMigrations(ds);
  } finally {
    await ds.destroy();
  }
}
