// The migration chain: one self-contained baseline per area that builds exactly the committed
// schema snapshot, undoes cleanly, and whose engagement baseline also runs on a database of its own.
// After a deliberate schema change: UPDATE_SCHEMA_SNAPSHOT=1 npx jest test/foundation/migrations
import { Test } from '@nestjs/testing';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import {
  AppConfigModule,
  DatabaseModule,
  dataSourceOptions,
  JsonLogger,
  migrateEngagementDatabase,
  runMigrations,
  setLogSink,
} from '@app/domain';
import { ENGAGEMENT_MIGRATIONS, MIGRATIONS } from '@app/domain/database/migrations';
import { describeSchema } from '../support/schema';

const SNAPSHOT = path.join(__dirname, 'schema.snapshot.txt');
const MIGRATIONS_DIR = path.join(__dirname, '../../libs/domain/src/database/migrations');
const UNREACHABLE = 'postgres://postgres@127.0.0.1:1/nowhere';

const created: string[] = [];

async function admin<T>(fn: (c: Client) => Promise<T>): Promise<T> {
  const c = new Client({ connectionString: process.env.TEST_ADMIN_DATABASE_URL });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** A new empty database on the run's server (dropped after the file). */
async function emptyDatabase(): Promise<string> {
  const name = `${process.env.TEST_DATABASE_NAME}_m${created.length}`;
  await admin((c) => c.query(`CREATE DATABASE "${name}"`));
  created.push(name);
  const url = new URL(process.env.TEST_ADMIN_DATABASE_URL!);
  url.pathname = `/${name}`;
  return url.toString();
}

async function withDataSource<T>(url: string, fn: (ds: DataSource) => Promise<T>): Promise<T> {
  const ds = new DataSource(dataSourceOptions(url, {}, 2));
  await ds.initialize();
  try {
    return await fn(ds);
  } finally {
    await ds.destroy();
  }
}

function snapshot(): string {
  return readFileSync(SNAPSHOT, 'utf8');
}

/** The lines of `schema` describing one table, from its header to the blank line after it. */
function tableBlock(schema: string, table: string): string[] {
  const lines = schema.split('\n');
  const start = lines.indexOf(`table ${table}`);
  const end = lines.indexOf('', start);
  return lines.slice(start, end);
}

afterAll(async () => {
  await admin(async (c) => {
    for (const name of created) await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  });
});

describe('migrations', () => {
  it('keep one self-contained baseline per area: at most 10 baselines, none importing another', () => {
    const files = readdirSync(MIGRATIONS_DIR).sort();
    expect(files).toContain('index.ts');
    const baselines = files.filter((f) => f !== 'index.ts');
    expect(baselines.length).toBeLessThanOrEqual(10);
    // Every file is registered, in file-name order.
    expect(MIGRATIONS.map((m) => new m().name)).toEqual(
      baselines.map((f) => {
        const src = readFileSync(path.join(MIGRATIONS_DIR, f), 'utf8');
        return /name = '(\w+)'/.exec(src)![1];
      }),
    );
    for (const f of baselines) {
      const src = readFileSync(path.join(MIGRATIONS_DIR, f), 'utf8');
      const imports = [...src.matchAll(/from '([^']+)'/g)].map((m) => m[1]);
      expect({ file: f, imports }).toEqual({ file: f, imports: ['typeorm'] });
    }
  });

  it('build exactly the committed schema snapshot, engagement table included', async () => {
    const url = await emptyDatabase();
    const ran = await withDataSource(url, runMigrations);
    expect(ran).toEqual(MIGRATIONS.map((m) => new m().name));
    const schema = await describeSchema(url);
    if (process.env.UPDATE_SCHEMA_SNAPSHOT) writeFileSync(SNAPSHOT, schema);
    expect(schema).toBe(snapshot());
    expect(tableBlock(schema, 'engagement_events').length).toBeGreaterThan(1);
  });

  it('undo every baseline down to the extensions, and apply again to the same schema', async () => {
    const url = await emptyDatabase();
    await withDataSource(url, async (ds) => {
      await runMigrations(ds);
      for (let i = 0; i < MIGRATIONS.length; i++)
        await ds.undoLastMigration({ transaction: 'each' });
    });
    // Extensions stay (uuid-ossp is TypeORM's own: it installs it for entities with uuid keys).
    const left = (await describeSchema(url)).split('\n').filter(Boolean);
    expect(left).toEqual(['extension pg_trgm', 'extension pgcrypto', 'extension uuid-ossp']);

    await withDataSource(url, runMigrations);
    expect(await describeSchema(url)).toBe(snapshot());
  });

  it('run the engagement baseline on its own against a separate engagement database', async () => {
    const mainUrl = await emptyDatabase();
    await withDataSource(mainUrl, runMigrations);
    const engagementUrl = await emptyDatabase();

    expect(await migrateEngagementDatabase(engagementUrl, mainUrl)).toEqual(
      ENGAGEMENT_MIGRATIONS.map((m) => new m().name),
    );
    const schema = await describeSchema(engagementUrl);
    expect(schema.split('\n').filter(Boolean)).toEqual([
      ...tableBlock(snapshot(), 'engagement_events'),
      ...snapshot()
        .split('\n')
        .filter((l) => l.startsWith('sequence engagement_events_')),
    ]);
    // Applied once: a second run, or one reaching the main database by another URL, finds it done.
    expect(await migrateEngagementDatabase(engagementUrl, mainUrl)).toEqual([]);
    const sameDatabase = new URL(mainUrl);
    sameDatabase.searchParams.set('application_name', 'engagement');
    expect(await migrateEngagementDatabase(sameDatabase.toString(), mainUrl)).toEqual([]);
    expect(await migrateEngagementDatabase(undefined, mainUrl)).toEqual([]);
    // `npm run migrate` fails when the engagement database cannot be reached.
    await expect(migrateEngagementDatabase(UNREACHABLE, mainUrl)).rejects.toThrow();
  });

  it('start with migrations on while the engagement database is down, and say so', async () => {
    const url = await emptyDatabase();
    const lines: string[] = [];
    setLogSink((line) => lines.push(line));
    const env = { ...process.env };
    process.env.DATABASE_URL = url;
    process.env.ENGAGEMENT_DATABASE_URL = UNREACHABLE;
    const moduleRef = await Test.createTestingModule({
      imports: [AppConfigModule, DatabaseModule.forRoot({ migrate: true })],
    })
      .setLogger(new JsonLogger('migrations-test', 'warn'))
      .compile();
    process.env = env;
    try {
      const ds = moduleRef.get(DataSource);
      const applied: unknown[] = await ds.query(`SELECT name FROM schema_migrations`);
      expect(applied).toHaveLength(MIGRATIONS.length);
      const warnings = lines.map((l) => JSON.parse(l) as { level: string; msg: string });
      expect(warnings).toContainEqual(
        expect.objectContaining({
          level: 'warn',
          msg: 'engagement database migrations not applied',
        }),
      );
    } finally {
      await moduleRef.close();
    }
  });
});
