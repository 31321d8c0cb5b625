// A dynamic segment over 1,000,000 contacts of one organization.
// Prints the p50 of its first contacts page (target ≤ 150 ms) and of its count (target ≤ 1 s)
// through the API, next to the same SQL run directly through pg, and the ratios.
//   npm run bench -- segments [contacts=1000000] [days=30] [runs=30]
// BENCH_REUSE=1 keeps the seeded database of a previous run (seeding takes minutes).
import { Client, Pool } from 'pg';
import {
  asOrgId,
  compileRules,
  FieldCipher,
  configureFieldEncryption,
  parseRules,
  sql,
} from '@app/domain';
import {
  admin,
  benchDatabase,
  benchEnv,
  benchKey,
  fmt,
  httpReady,
  startApp,
  stop,
  UNREACHED_KEY_LIMITS,
} from './support/harness';

const CONTACTS = Number(process.argv[2] || 1_000_000);
const DAYS = Number(process.argv[3] || 30);
const RUNS = Number(process.argv[4] || 30);
const PORT = Number(process.env.BENCH_PORT || 4417);
const TAGS = [
  'vip',
  'gold',
  'silver',
  'bronze',
  'newsletter',
  'beta',
  'churn-risk',
  'partner',
  'press',
  'investor',
  ...Array.from({ length: 10 }, (_, i) => `tag${String(i).padStart(2, '0')}`),
];

const RULES = {
  operator: 'and',
  conditions: [
    { field: 'tags', operator: 'hasAny', value: ['vip', 'gold'] },
    { field: 'status', operator: 'equals', value: 'active' },
    { field: 'createdAt', operator: 'withinLastDays', value: DAYS },
  ],
};

const ORG_NAME = 'bench-segments';

/** The bench database: recreated, or kept when reusing a previous run's seed. */
async function database(reuse: boolean): Promise<string> {
  const name = 'mp_bench_segments';
  if (!reuse) return benchDatabase(name);
  const adminUrl =
    process.env.BENCH_ADMIN_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
  const pg = new Client({ connectionString: adminUrl });
  await pg.connect();
  const found = await pg.query(`SELECT 1 FROM pg_database WHERE datname = $1`, [name]);
  await pg.end();
  if (!found.rows.length) return benchDatabase(name);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function time(fn: () => Promise<unknown>, runs: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = process.hrtime.bigint();
    await fn();
    out.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return out;
}

async function seed(pg: Client, orgId: string): Promise<void> {
  const t0 = Date.now();
  await pg.query(`SELECT setseed(0.42)`);
  // Contacts: statuses 70/20/10 %, createdAt spread evenly over the last 365 days.
  await pg.query(
    `INSERT INTO contacts (organization_id, first_name, last_name, display_name, status, language,
                           created_at, updated_at)
     SELECT $1, 'First' || i, 'Last' || (i % 5000), 'First' || i || ' Last' || (i % 5000),
            CASE WHEN r < 0.7 THEN 'active' WHEN r < 0.9 THEN 'inactive' ELSE 'archived' END,
            (ARRAY['en','fr','de','es'])[1 + i % 4], at, at
       FROM (SELECT i, random() AS r, now() - random() * interval '365 days' AS at
               FROM generate_series(1, $2::int) AS i) g`,
    [orgId, CONTACTS],
  );
  await pg.query(`INSERT INTO contact_tags (organization_id, name) SELECT $1, unnest($2::text[])`, [
    orgId,
    TAGS,
  ]);
  // One to three tags per contact, uniformly among the 20 tags (each on about 10 % of contacts).
  await pg.query(
    `UPDATE contacts c SET tag_ids = s.ids
       FROM (SELECT c.id, array_agg(DISTINCT t.id ORDER BY t.id) AS ids
               FROM contacts c
               CROSS JOIN LATERAL (SELECT 1 + floor(random() * 20)::int AS k
                                     FROM generate_series(1, 1 + (random() * 2)::int + (c.id IS NULL)::int)) r -- c.id: re-drawn per contact
               JOIN (SELECT id, row_number() OVER (ORDER BY name) AS k FROM contact_tags
                      WHERE organization_id = $1) t ON t.k = r.k
              WHERE c.organization_id = $1 GROUP BY c.id) s
      WHERE c.organization_id = $1 AND c.id = s.id`,
    [orgId],
  );
  await pg.query(`VACUUM ANALYZE contacts`);
  await pg.query(`VACUUM ANALYZE contact_tags`);
  const [{ n }] = (
    await pg.query(
      `SELECT sum(cardinality(tag_ids))::int AS n FROM contacts WHERE organization_id = $1`,
      [orgId],
    )
  ).rows;
  process.stderr.write(
    `seeded ${fmt(CONTACTS)} contacts and ${fmt(n)} tags on them in ${fmt((Date.now() - t0) / 1000, 1)} s\n`,
  );
}

async function main(): Promise<void> {
  // Another process answering on the port would be measured instead of ours.
  if (await httpReady(`http://127.0.0.1:${PORT}/health`).catch(() => false)) {
    throw new Error(`port ${PORT} is in use: set BENCH_PORT`);
  }
  const dbUrl = await database(process.env.BENCH_REUSE === '1');
  const env = benchEnv(dbUrl, { PORT: String(PORT), RUN_MIGRATIONS: 'true' });
  const api = await startApp('api', env, () => httpReady(`http://127.0.0.1:${PORT}/health`));
  const pg = new Client({ connectionString: dbUrl });
  await pg.connect();
  try {
    const seeded = await pg.query<{ id: string }>(
      `SELECT o.id FROM organizations o WHERE o.name = $1
          AND (SELECT count(*) FROM contacts c WHERE c.organization_id = o.id) = $2`,
      [ORG_NAME, CONTACTS],
    );
    const orgId = asOrgId(
      seeded.rows[0]?.id ??
        (admin(env, ['create-org', '--name', ORG_NAME]) as { organization: { id: string } })
          .organization.id,
    );
    const key = benchKey(env, orgId, 'bench', 'all', UNREACHED_KEY_LIMITS);
    if (seeded.rows.length) process.stderr.write(`reusing the seeded organization ${orgId}\n`);
    else await seed(pg, orgId);

    const base = `http://127.0.0.1:${PORT}/api/v1/user/contact-segments`;
    const headers = { 'X-API-Key': key, 'Content-Type': 'application/json' };
    const created = await fetch(base, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: 'bench', type: 'dynamic', rules: RULES }),
    });
    if (created.status !== 201) throw new Error(`create segment: ${created.status}`);
    const segmentId = ((await created.json()) as { data: { id: string } }).data.id;

    const get = async (url: string) => {
      const res = await fetch(url, { headers });
      if (res.status !== 200) throw new Error(`GET ${url}: ${res.status}`);
      return res.json() as Promise<{ data: unknown; meta?: { total: number } }>;
    };

    // The same SQL the API runs, compiled by the same code with the same bound values.
    configureFieldEncryption(new FieldCipher(Buffer.from(env.ENCRYPTION_KEY!, 'base64')));
    const predicate = compileRules(parseRules(RULES), { now: new Date(), organizationId: orgId });
    const page = sql`SELECT c.id FROM contacts c WHERE c.organization_id = ${orgId} AND ${predicate}
      ORDER BY c.created_at DESC, c.id DESC LIMIT 20 OFFSET 0`;
    const count = sql`SELECT count(*)::int AS n FROM contacts c
      WHERE c.organization_id = ${orgId} AND ${predicate}`;
    const [pageSql, countSql, args] = [page.text, count.text, page.values];

    // Warm-up: caches and plans on both sides.
    for (let i = 0; i < 3; i++) {
      await pg.query(pageSql, args);
      await pg.query(countSql, args);
      await get(`${base}/${segmentId}/contacts?page=1&limit=20`);
      await get(`${base}/${segmentId}?withCounts=true`);
    }

    // What the endpoint needs from the database: the page and its total, run side by side.
    const pool = new Pool({ connectionString: dbUrl, max: 2 });
    const sqlPage = await time(() => pg.query(pageSql, args), RUNS);
    const sqlPageAndCount = await time(
      () => Promise.all([pool.query(pageSql, args), pool.query(countSql, args)]),
      RUNS,
    );
    await pool.end();
    const apiPage = await time(() => get(`${base}/${segmentId}/contacts?page=1&limit=20`), RUNS);
    const countRuns = Math.max(5, Math.ceil(RUNS / 3));
    const sqlCount = await time(() => pg.query(countSql, args), countRuns);
    const apiCount = await time(() => get(`${base}/${segmentId}?withCounts=true`), countRuns);

    // withinLastDays counts back from "now": a contact crosses the cutoff about every 30 s, so
    // the check compiles the SQL afresh and allows one retry for a crossing in between.
    let agreed = false;
    let members = 0;
    for (let attempt = 0; attempt < 2 && !agreed; attempt++) {
      const freshPredicate = compileRules(parseRules(RULES), {
        now: new Date(),
        organizationId: orgId,
      });
      const fresh = sql`SELECT count(*)::int AS n FROM contacts c
        WHERE c.organization_id = ${orgId} AND ${freshPredicate}`;
      const direct = await pg.query<{ n: number }>(fresh.text, fresh.values);
      const counted = (await get(`${base}/${segmentId}?withCounts=true`)) as {
        data: { contactCount: number };
      };
      const page = await get(`${base}/${segmentId}/contacts?page=1&limit=20`);
      members = direct.rows[0].n;
      agreed = counted.data.contactCount === members && page.meta?.total === members;
    }
    if (!agreed) throw new Error('API and SQL disagree on the member count');
    const p50 = (s: number[]) => percentile(s, 50);
    const p95 = (s: number[]) => percentile(s, 95);
    const line = (label: string, s: number[]) =>
      `${label} p50 ${fmt(p50(s), 1)} ms  p95 ${fmt(p95(s), 1)} ms  (${s.length} runs)`;
    process.stdout.write(
      [
        `segments: ${fmt(CONTACTS)} contacts in one organization; rules: tags hasAny [vip, gold]` +
          ` AND status equals active AND createdAt withinLastDays ${DAYS} -> ${fmt(members)} members`,
        line('          page SQL alone via pg (20 rows)             ', sqlPage),
        line('baseline  page SQL + count SQL via pg, side by side  ', sqlPageAndCount),
        line('ours      GET /contact-segments/{id}/contacts?limit=20', apiPage),
        `ratio     ${fmt(p50(apiPage) / p50(sqlPageAndCount), 2)} (target: ours p50 <= 150 ms)`,
        line('baseline  count SQL via pg                          ', sqlCount),
        line('ours      GET /contact-segments/{id}?withCounts=true ', apiCount),
        `ratio     ${fmt(p50(apiCount) / p50(sqlCount), 2)} (target: ours p50 <= 1000 ms)`,
      ].join('\n') + '\n',
    );
  } finally {
    await pg.end();
    await stop(api);
  }
}

main().then(
  () => process.exit(0),
  (err: Error) => {
    process.stderr.write(`bench failed: ${err.stack}\n`);
    process.exit(1);
  },
);
