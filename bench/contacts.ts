// npm run bench -- contacts [--fresh] [--drop] [--duration 10] [--connections 10] [--processes N]
//                           [--rounds 3]
//
// Seeds 1,000,000 contacts (emails for all, SMS numbers for 30 %, 0-2 tags each; names hashed
// from the row number so no column correlates with another) into one
// organization of a separate database (mp_bench_contacts, reused between runs; --fresh rebuilds it,
// --drop removes it at the end), then measures three GET /contacts queries through the API
// (autocannon in a child process) next to the very same SQL statements run straight through pg
// with the same concurrency, and prints p50 / p99 / requests per second and the ratio. The API is
// measured twice: in this process (one event loop), and as deployed with API_PROCESSES=N (the
// compiled api, N processes sharing the port; default N = CPU count). The throughput runs alternate
// in rounds (SQL, API, API_PROCESSES=N, then again), so a swing of the machine's speed hits both
// sides alike; each round gives a ratio and the figure is their median.
import { INestApplication } from '@nestjs/common';
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Client, Pool } from 'pg';
import {
  asOrgId,
  blindIndexOf,
  ContactPageRepository,
  fieldCipher,
  normaliseContactListQuery,
  OrganizationService,
  ApiKeyService,
} from '@app/domain';
import type { ContactListQueryInput } from '@app/domain';
import { createTestApp } from '../test/support/app';
import {
  backendsCpu,
  backendsCpuSince,
  benchEnv,
  httpReady,
  idleShareSince,
  machineTicks,
  median,
  startApp,
  stop,
} from './support/harness';

const { values: args } = parseArgs({
  options: {
    fresh: { type: 'boolean', default: false },
    drop: { type: 'boolean', default: false },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '10' },
    contacts: { type: 'string', default: '1000000' },
    processes: { type: 'string', default: String(cpus().length) },
    rounds: { type: 'string', default: '3' },
  },
});

const N = Number(args.contacts);
const DURATION = Number(args.duration);
const CONNECTIONS = Number(args.connections);
const PROCESSES = Number(args.processes);
const ROUNDS = Math.max(1, Math.trunc(Number(args.rounds)) || 1);
const CLUSTER_PORT = 3391;
const ADMIN_URL = process.env.BENCH_ADMIN_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
// BENCH_CONTACTS_DB names another database; BENCH_DB_PREFIX prefixes it (bench:ab gives each
// revision its own).
const DB_NAME = `${process.env.BENCH_DB_PREFIX ?? ''}${process.env.BENCH_CONTACTS_DB || 'mp_bench_contacts'}`;
// A fixed key so a seeded database can be reused between runs (bench data only).
const BENCH_KEY = Buffer.from('contacts-bench-encryption-key-32').toString('base64');
const SEED_VERSION = 6;

const FIRST = [
  'Ada',
  'Alan',
  'Alice',
  'Barbara',
  'Bob',
  'Carol',
  'Charles',
  'Dave',
  'Edsger',
  'Eve',
  'Frances',
  'Frank',
  'Grace',
  'Hedy',
  'Ivan',
  'Joan',
  'John',
  'Katherine',
  'Ken',
  'Linus',
  'Margaret',
  'Niklaus',
  'Olga',
  'Peter',
  'Radia',
  'Richard',
  'Shafi',
  'Sophie',
  'Tim',
  'Whitfield',
];
const LAST = [
  'Allen',
  'Backus',
  'Berners-Lee',
  'Cerf',
  'Dijkstra',
  'Engelbart',
  'Feigenbaum',
  'Goldwasser',
  'Hamilton',
  'Hopper',
  'Iverson',
  'Johnson',
  'Kahn',
  'Knuth',
  'Lamport',
  'Liskov',
  'Lovelace',
  'McCarthy',
  'Naur',
  'Perlman',
  'Ritchie',
  'Shamir',
  'Sutherland',
  'Thompson',
  'Torvalds',
  'Turing',
  'Wilson',
  'Wirth',
  'Yao',
  'Zuse',
];
const TAGS = Array.from({ length: 20 }, (_, i) => `segment-${String(i).padStart(2, '0')}`);

const contactId = (i: number) => `00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`;
const emailOf = (i: number) => `user${i}@bench${i % 50}.example`;
const hasSms = (i: number) => i % 10 < 3;
const phoneOf = (i: number) => `+1415${String(i).padStart(7, '0')}`;

function log(msg: string) {
  process.stderr.write(`[bench contacts] ${msg}\n`);
}

async function ensureDatabase(): Promise<string> {
  const admin = new Client({ connectionString: ADMIN_URL });
  await admin.connect();
  try {
    const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [DB_NAME]);
    // A database seeded for another size or seed version is made anew (its schema may be older
    // too), as with --fresh.
    const reuse = found.rowCount && !args.fresh && (await seededFor(benchDbUrl()));
    if (!reuse) {
      await admin.query(`DROP DATABASE IF EXISTS ${DB_NAME} WITH (FORCE)`);
      await admin.query(`CREATE DATABASE ${DB_NAME}`);
    }
  } finally {
    await admin.end();
  }
  return benchDbUrl();
}

function benchDbUrl(): string {
  const u = new URL(ADMIN_URL);
  u.pathname = `/${DB_NAME}`;
  return u.toString();
}

/** Whether the database holds a seed of this version and size (read before the app starts). */
async function seededFor(databaseUrl: string): Promise<boolean> {
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const { rows } = await db.query(
      `SELECT version, contacts FROM bench_meta WHERE name = 'contacts'`,
    );
    return rows[0]?.version === SEED_VERSION && rows[0]?.contacts === N;
  } catch {
    return false;
  } finally {
    await db.end();
  }
}

async function dropDatabase(): Promise<void> {
  const admin = new Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${DB_NAME} WITH (FORCE)`);
  await admin.end();
}

interface Seeded {
  orgId: string;
}

async function seeded(db: Client): Promise<Seeded | null> {
  await db.query(
    `CREATE TABLE IF NOT EXISTS bench_meta (name text PRIMARY KEY, version int, org_id uuid, contacts int, key_id text)`,
  );
  const { rows } = await db.query(`SELECT * FROM bench_meta WHERE name = 'contacts'`);
  const r = rows[0];
  if (
    r &&
    r.version === SEED_VERSION &&
    r.contacts === N &&
    r.key_id === fieldCipher().currentKeyId
  ) {
    return { orgId: r.org_id };
  }
  return null;
}

/** Bulk load with triggers and FK checks off (session_replication_role), then derived data by SQL. */
async function seed(app: INestApplication, db: Client): Promise<Seeded> {
  const started = Date.now();
  const org = await app
    .get(OrganizationService)
    .create({ name: 'bench contacts', plan: 'enterprise' });
  await db.query(`SET session_replication_role = replica`);

  log(`seeding ${N} contacts...`);
  await db.query(
    `INSERT INTO contacts (id, organization_id, first_name, last_name, display_name, status,
                           created_at, updated_at, last_activity_at, channel_mask)
     SELECT ('00000000-0000-4000-8000-' || lpad(to_hex(i), 12, '0'))::uuid, $1,
            f.n, l.n, f.n || ' ' || l.n,
            CASE WHEN i % 10 < 7 THEN 'active' WHEN i % 10 < 9 THEN 'inactive' ELSE 'archived' END,
            ts, ts,
            CASE WHEN i % 2 = 0 THEN ts + (i % 1000) * interval '1 minute' END,
            CASE WHEN i % 10 < 3 THEN 3 ELSE 1 END
       FROM generate_series(0, $2::int - 1) AS i
       CROSS JOIN LATERAL (SELECT timestamptz '2024-01-01' + i * interval '1 second' AS ts) t
       CROSS JOIN LATERAL (SELECT ($3::text[])[1 + abs(hashint4(i)::bigint) % $5::int] AS n) f
       CROSS JOIN LATERAL (SELECT ($4::text[])[1 + abs(hashint4(i + 7)::bigint) % $6::int] AS n) l`,
    [org.id, N, FIRST, LAST, FIRST.length, LAST.length],
  );
  log(`contacts done in ${((Date.now() - started) / 1000).toFixed(1)} s; emails and SMS...`);

  const cipher = fieldCipher();
  const BATCH = 20_000;
  for (let from = 0; from < N; from += BATCH) {
    const to = Math.min(N, from + BATCH);
    const ids: string[] = [];
    const emails: string[] = [];
    const emailHashes: string[] = [];
    const smsIds: string[] = [];
    const phones: string[] = [];
    const phoneHashes: string[] = [];
    for (let i = from; i < to; i++) {
      ids.push(contactId(i));
      emails.push(cipher.encrypt(emailOf(i)));
      emailHashes.push(blindIndexOf('email', emailOf(i)));
      if (hasSms(i)) {
        smsIds.push(contactId(i));
        phones.push(cipher.encrypt(phoneOf(i)));
        phoneHashes.push(blindIndexOf('phone', phoneOf(i)));
      }
    }
    await db.query(
      `INSERT INTO contact_emails (organization_id, contact_id, email, email_hash, status, is_primary)
       SELECT $1, c, e, h, 'verified', true FROM unnest($2::uuid[], $3::text[], $4::text[]) AS v(c, e, h)`,
      [org.id, ids, emails, emailHashes],
    );
    await db.query(
      `INSERT INTO contact_sms (organization_id, contact_id, phone_number, phone_hash, country_code, status, is_primary)
       SELECT $1, c, p, h, 'US', 'verified', true FROM unnest($2::uuid[], $3::text[], $4::text[]) AS v(c, p, h)`,
      [org.id, smsIds, phones, phoneHashes],
    );
  }
  log(`channels done in ${((Date.now() - started) / 1000).toFixed(1)} s; tags...`);

  const { rows: tags } = await db.query(
    `INSERT INTO contact_tags (organization_id, name) SELECT $1, unnest($2::text[]) RETURNING id, name`,
    [org.id, TAGS],
  );
  const tagIds = TAGS.map((n) => tags.find((t) => t.name === n).id);
  await db.query(
    `UPDATE contacts c SET tag_ids = s.ids
       FROM (SELECT ('00000000-0000-4000-8000-' || lpad(to_hex(i), 12, '0'))::uuid AS contact_id,
                    array_agg(($2::uuid[])[1 + k] ORDER BY ($2::uuid[])[1 + k]) AS ids
               FROM generate_series(0, $3::int - 1) AS i
               CROSS JOIN LATERAL (SELECT DISTINCT k
                                     FROM unnest(ARRAY[(i * 7) % 20, (i * 13 + 5) % 20]) AS k
                                    LIMIT (i % 3)) x
              GROUP BY 1) s
      WHERE c.organization_id = $1 AND c.id = s.contact_id`,
    [org.id, tagIds, N],
  );
  await db.query(`RESET session_replication_role`);
  // What the triggers would have maintained.
  await db.query(
    `INSERT INTO contact_counters (organization_id, status, channel_mask, slot, total)
     SELECT organization_id, coalesce(status, ''), channel_mask, 0, count(*) FROM contacts
      WHERE organization_id = $1 GROUP BY 1, 2, 3
     ON CONFLICT (organization_id, status, channel_mask, slot) DO UPDATE SET total = EXCLUDED.total`,
    [org.id],
  );
  await db.query(
    `INSERT INTO contact_tag_counters (tag_id, slot, total)
     SELECT x, 0, count(*) FROM contacts, unnest(tag_ids) x WHERE organization_id = $1 GROUP BY 1`,
    [org.id],
  );
  log(`tags done in ${((Date.now() - started) / 1000).toFixed(1)} s; VACUUM ANALYZE...`);
  await db.query(`VACUUM ANALYZE`);
  await db.query(
    `INSERT INTO bench_meta (name, version, org_id, contacts, key_id) VALUES ('contacts', $1, $2, $3, $4)`,
    [SEED_VERSION, org.id, N, fieldCipher().currentKeyId],
  );
  log(`seeded in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return { orgId: org.id };
}

interface Figures {
  p50: number;
  p99: number;
  rps: number;
  /** CPU of this process per request: the pg client (baseline) or the whole API (ours). */
  cpuMs: number;
  /** CPU of the bench database's PostgreSQL backends per request (0 when the server is remote). */
  pgMs: number;
  /** The share of the machine's CPU time that was idle during the run. */
  idle: number;
}

/** Started right before a timed run; called after it with the run's request count. */
type Meter = () => Promise<(requests: number) => Promise<Pick<Figures, 'pgMs' | 'idle'>>>;

/** PostgreSQL's CPU per request and the machine's idle share, read from /proc around a run. */
function meterOn(db: Client): Meter {
  const query = async (sql: string) => (await db.query<{ pid: number }>(sql)).rows;
  return async () => {
    const pg = await backendsCpu(query);
    const ticks = machineTicks();
    return async (requests) => ({
      idle: idleShareSince(ticks),
      pgMs: (await backendsCpuSince(query, pg)) / requests,
    });
  };
}

function cpuMsSince(start: NodeJS.CpuUsage): number {
  const u = process.cpuUsage(start);
  return (u.user + u.system) / 1000;
}

function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/**
 * The statements GET /contacts runs, replayed through pg: the page statement (contacts, total,
 * channel records and tag names), and the count when a page past the first comes back empty.
 */
async function direct(
  pool: Pool,
  repo: ContactPageRepository,
  orgId: string,
  input: ContactListQueryInput,
  connections: number,
  seconds: number,
  meter: Meter,
): Promise<Figures> {
  const q = normaliseContactListQuery(input);
  const { count, page } = repo.listQueries(asOrgId(orgId), q);
  const once = async () => {
    const rows = await pool.query(page.text, page.values);
    if (!rows.rows.length && q.page > 1) await pool.query(count.text, count.values);
  };
  for (let i = 0; i < 50; i++) await once(); // warm up
  const latencies: number[] = [];
  const machine = await meter();
  const cpu = process.cpuUsage();
  const until = Date.now() + seconds * 1000;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (Date.now() < until) {
        const t = process.hrtime.bigint();
        await once();
        latencies.push(Number(process.hrtime.bigint() - t) / 1e6);
      }
    }),
  );
  const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
  const cpuMs = cpuMsSince(cpu) / latencies.length;
  latencies.sort((a, b) => a - b);
  return {
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    rps: latencies.length / elapsed,
    cpuMs,
    ...(await machine(latencies.length)),
  };
}

/**
 * autocannon in its own process, so the load generator does not share the API's event loop, and in
 * its own session: with autogroup scheduling the kernel shares CPU between sessions first, and the
 * baseline's load generator (this process) does not take from PostgreSQL's share either.
 */
async function api(
  url: string,
  apiKey: string,
  connections: number,
  seconds: number,
  meter: Meter,
): Promise<Figures> {
  const bin = resolve(require.resolve('autocannon'), '..', 'autocannon.js');
  const run = (duration: number) =>
    new Promise<Omit<Figures, 'pgMs' | 'idle'> & { requests: number }>((done, fail) => {
      const cpu = process.cpuUsage();
      const child = spawn(
        process.execPath,
        [
          bin,
          '-j',
          '-c',
          String(connections),
          '-d',
          String(duration),
          '-H',
          `X-API-Key=${apiKey}`,
          url,
        ],
        { detached: true },
      );
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      child.on('error', fail);
      child.on('close', (code) => {
        if (code !== 0) return fail(new Error(`autocannon exited with ${code}`));
        const r = JSON.parse(out);
        if (r.non2xx || r.errors)
          return fail(
            new Error(
              `${url}: non-2xx: ${r.non2xx}, errors: ${r.errors}, ` +
                `status codes: ${JSON.stringify(r.statusCodeStats ?? {})}`,
            ),
          );
        done({
          p50: r.latency.p50,
          p99: r.latency.p99,
          rps: r.requests.average,
          cpuMs: cpuMsSince(cpu) / r.requests.total,
          requests: r.requests.total,
        });
      });
    });
  await run(2); // warm up
  const machine = await meter();
  const { requests, ...figures } = await run(seconds);
  return { ...figures, ...(await machine(requests)) };
}

/**
 * One run's figures. CPU of this process is left out for the API_PROCESSES api (its processes
 * are not this one); PostgreSQL's CPU per request and the idle share show what bounds the ratio:
 * the two sides share the machine's cores with PostgreSQL.
 */
const fmt = (f: Figures, ownCpu = true) =>
  `p50 ${f.p50.toFixed(1)} ms  p99 ${f.p99.toFixed(1)} ms  ${f.rps.toFixed(0)} req/s  ` +
  `(${ownCpu ? `${f.cpuMs.toFixed(2)} ms CPU/request in this process, ` : ''}` +
  `PostgreSQL ${f.pgMs.toFixed(2)} ms/request, ${(f.idle * 100).toFixed(0)} % idle)`;

async function main() {
  const url = await ensureDatabase();
  process.env.NODE_ENV = 'production';
  process.env.DATABASE_URL = url;
  process.env.REDIS_URL = process.env.BENCH_REDIS_URL || 'redis://127.0.0.1:6379/10';
  process.env.ENCRYPTION_KEY = BENCH_KEY;
  process.env.RUN_MIGRATIONS = 'true';
  process.env.LOG_LEVEL = 'warn';
  process.env.BULL_PREFIX = 'mp-bench';
  process.env.DATA_DIR = mkdtempSync(join(tmpdir(), 'mp-bench-'));
  const app = await createTestApp();
  await app.listen(0, '127.0.0.1');
  const port = (app.getHttpServer().address() as { port: number }).port;
  const db = new Client({ connectionString: url });
  await db.connect();
  const pool = new Pool({ connectionString: url, max: 20 });
  const meter = meterOn(db);
  let cluster: Awaited<ReturnType<typeof startApp>> | undefined;
  try {
    const meta = (await seeded(db)) ?? (await seed(app, db));
    const { value: apiKey } = await app.get(ApiKeyService).create(asOrgId(meta.orgId), {
      name: 'bench',
      scopes: ['contacts:read'],
      rateLimitPerMinute: 1_000_000,
    });
    const [{ n }] = (
      await db.query(`SELECT count(*)::int AS n FROM contacts WHERE organization_id = $1`, [
        meta.orgId,
      ])
    ).rows;
    log(`organization ${meta.orgId} holds ${n} contacts`);
    cluster = await startApp(
      'api',
      benchEnv(url, {
        REDIS_URL: process.env.REDIS_URL!,
        ENCRYPTION_KEY: BENCH_KEY,
        RUN_MIGRATIONS: 'false',
        PORT: String(CLUSTER_PORT),
        API_PROCESSES: String(PROCESSES),
        DATA_DIR: process.env.DATA_DIR!,
      }),
      () => httpReady(`http://127.0.0.1:${CLUSTER_PORT}/health`),
      { ownSession: true },
    );
    const repo = app.get(ContactPageRepository);
    const email = emailOf(Math.floor(N / 2));
    const cases: [string, ContactListQueryInput, string][] = [
      ['first page, limit=100', { limit: 100 }, 'limit=100'],
      ['search=<exact email>', { search: email }, `search=${encodeURIComponent(email)}`],
      [
        'status=active&channel=sms&sortBy=lastName',
        { status: 'active', channel: 'sms', sortBy: 'lastName' },
        'status=active&channel=sms&sortBy=lastName',
      ],
    ];
    process.stdout.write(
      `contacts bench: ${n} contacts, ${DURATION} s per run, ` +
        `load average ${loadavg()[0].toFixed(2)} on ${cpus().length} CPUs before the run\n`,
    );
    for (const [name, input, qs] of cases) {
      const url = `http://127.0.0.1:${port}/api/v1/user/contacts?${qs}`;
      const latencyBase = await direct(pool, repo, meta.orgId, input, 1, DURATION, meter);
      const latencyOurs = await api(url, apiKey, 1, DURATION, meter);
      const lines = [
        '',
        name,
        '  latency, 1 connection',
        `    baseline (same SQL through pg): ${fmt(latencyBase)}`,
        `    ours (GET through the API):     ${fmt(latencyOurs)}`,
        `  throughput, ${CONNECTIONS} connections, ${ROUNDS} rounds`,
      ];
      const ratios: number[] = [];
      const clusterRatios: number[] = [];
      const pgBase: number[] = [];
      const pgOurs: number[] = [];
      for (let round = 1; round <= ROUNDS; round++) {
        const loadBase = await direct(pool, repo, meta.orgId, input, CONNECTIONS, DURATION, meter);
        const loadOurs = await api(url, apiKey, CONNECTIONS, DURATION, meter);
        const loadCluster = await api(
          url.replace(`:${port}/`, `:${CLUSTER_PORT}/`),
          apiKey,
          CONNECTIONS,
          DURATION,
          meter,
        );
        const ratio = loadOurs.rps / loadBase.rps;
        const clusterRatio = loadCluster.rps / loadBase.rps;
        ratios.push(ratio);
        clusterRatios.push(clusterRatio);
        pgBase.push(loadBase.pgMs);
        pgOurs.push(loadOurs.pgMs);
        lines.push(
          `    round ${round}`,
          `      baseline (same SQL through pg): ${fmt(loadBase)}`,
          `      ours (GET through the API):     ${fmt(loadOurs)}`,
          `      ours, API_PROCESSES=${PROCESSES}:          ${fmt(loadCluster, false)}`,
          `      ratios: ${ratio.toFixed(2)} one process, ` +
            `${clusterRatio.toFixed(2)} API_PROCESSES=${PROCESSES}`,
        );
      }
      const spread = (r: number[]) =>
        `${median(r).toFixed(2)} (rounds ${r.map((x) => x.toFixed(2)).join(' / ')})`;
      lines.push(
        `    ratio (API req/s / SQL req/s), median:  ${spread(ratios)}`,
        `    ratio, API_PROCESSES=${PROCESSES}, median:         ${spread(clusterRatios)}`,
        `    PostgreSQL CPU/request, median: ${median(pgBase).toFixed(2)} ms for the SQL, ` +
          `${median(pgOurs).toFixed(2)} ms for the same statement under the API (one process)`,
      );
      process.stdout.write(lines.join('\n') + '\n');
    }
  } finally {
    if (cluster) await stop(cluster);
    await pool.end();
    await db.end();
    await app.close();
    if (args.drop) await dropDatabase();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`${(err as Error).stack ?? err}\n`);
    process.exit(1);
  },
);
