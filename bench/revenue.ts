// The p50 of the revenue attribution report over a 90-day window with 1,000,000
// conversions, through the API, next to the same aggregate SQL run directly in the same run.
//   npm run bench -- revenue [iterations=40] [conversions=1000000]
import { Client } from 'pg';
import { asOrgId, Clock, revenueReportStatement, RevenueReportService } from '@app/domain';
import {
  admin,
  benchDatabase,
  benchEnv,
  benchKey,
  fmt,
  httpReady,
  startApp,
  stop,
} from './support/harness';

const iterations = Number(process.argv[2] || 40);
const conversions = Number(process.argv[3] || 1_000_000);
const PORT = 3991;
const CAMPAIGNS = 25;
const SPAN_DAYS = 180; // the 90-day window and its previous window are both full

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

async function timed(fn: () => Promise<void>): Promise<number> {
  const t = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - t) / 1e6;
}

async function main(): Promise<void> {
  const databaseUrl = await benchDatabase('mp_bench_revenue');
  const env = benchEnv(databaseUrl, { PORT: String(PORT), RUN_MIGRATIONS: 'true' });
  const api = await startApp('api', env, () => httpReady(`http://127.0.0.1:${PORT}/health`));
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const out = admin(env, ['create-org', '--name', 'bench', '--with-key']) as {
      organization: { id: string };
    };
    const orgId = asOrgId(out.organization.id);
    const key = benchKey(env, orgId, 'bench', 'analytics:read', ['--per-minute', '100000000']);

    const seedStart = Date.now();
    const [{ id: listId }] = (
      await db.query(`SELECT id FROM contact_lists WHERE organization_id = $1`, [orgId])
    ).rows as { id: string }[];
    await db.query(
      `INSERT INTO campaigns (organization_id, name, subject, text, from_address, list_id,
                              status, recipient_count, sent_count, started_at, completed_at)
       SELECT $1, 'Campaign ' || g, 'Subject', 'Hello', 'news@shop.example', $2,
              'sent', 50000 + g * 1000, 50000 + g * 1000, now(), now()
         FROM generate_series(1, $3) g`,
      [orgId, listId, CAMPAIGNS],
    );
    // Conversions spread evenly over the last 180 days, three channels, 25 campaigns,
    // revenue 0.00–499.99.
    await db.query(
      `INSERT INTO conversions (organization_id, campaign_id, order_id, revenue, currency, channel, occurred_at)
       SELECT $1, c.ids[1 + (g % $3)], 'order-' || g, ((g::bigint * 7919) % 50000) / 100.0, 'USD',
              (ARRAY['email','sms','push'])[1 + (g % 3)],
              now() - (g::float8 / $2) * interval '${SPAN_DAYS} days'
         FROM generate_series(1, $2) g,
              (SELECT array_agg(id ORDER BY name) AS ids FROM campaigns WHERE organization_id = $1) c`,
      [orgId, conversions, CAMPAIGNS],
    );
    await db.query(`VACUUM ANALYZE conversions`);
    await db.query(`ANALYZE campaigns`);
    const seedMs = Date.now() - seedStart;

    // One window for both sides: the 90 UTC days through today, as the service resolves it.
    const today = new Date().toISOString().slice(0, 10);
    const from = new Date(Date.now() - 89 * 86_400_000).toISOString().slice(0, 10);
    const clock: Clock = { now: () => new Date() };
    const window = new RevenueReportService(null as never, clock).resolveWindow(orgId, {
      from,
      to: today,
    });
    const statement = revenueReportStatement(window);
    const url = `http://127.0.0.1:${PORT}/api/v1/user/reports/revenue-attribution?from=${from}&to=${today}`;
    const headers = { 'X-API-Key': key };

    let apiBody: { data: { overview: { totalConversions: number } } } | undefined;
    let sqlRow: { report: { overview: { totalConversions: number } } } | undefined;
    const viaApi = async () => {
      const res = await fetch(url, { headers });
      if (res.status !== 200) throw new Error(`report answered ${res.status}`);
      apiBody = (await res.json()) as typeof apiBody;
    };
    const direct = async () => {
      sqlRow = (await db.query(statement.text, statement.values)).rows[0] as typeof sqlRow;
    };
    // Warm-up, then alternate so cache and drift affect both sides alike.
    for (let i = 0; i < 3; i++) {
      await viaApi();
      await direct();
    }
    const api: number[] = [];
    const base: number[] = [];
    for (let i = 0; i < iterations; i++) {
      api.push(await timed(viaApi));
      base.push(await timed(direct));
    }
    // Reference: what one scan of the window's conversions costs (the report without the rollup).
    const scan: number[] = [];
    for (let i = 0; i < 5; i++) {
      scan.push(
        await timed(async () => {
          await db.query(
            `SELECT (occurred_at AT TIME ZONE 'UTC')::date, channel, campaign_id, sum(revenue), count(*)
               FROM conversions WHERE organization_id = $1 AND occurred_at >= $2 AND occurred_at < $3
              GROUP BY 1, 2, 3`,
            [orgId, window.from, window.to],
          );
        }),
      );
    }
    scan.sort((a, b) => a - b);
    if (apiBody!.data.overview.totalConversions !== sqlRow!.report.overview.totalConversions) {
      throw new Error('the API and the direct SQL disagree');
    }
    api.sort((a, b) => a - b);
    base.sort((a, b) => a - b);
    const inWindow = apiBody!.data.overview.totalConversions;
    process.stdout.write(
      [
        `revenue: ${fmt(conversions)} conversions over ${SPAN_DAYS} days (seeded in ${fmt(seedMs / 1000, 1)} s), ` +
          `90-day window holding ${fmt(inWindow)}, ${iterations} runs each`,
        `baseline  same aggregate SQL run directly (pg)   p50 ${fmt(quantile(base, 0.5), 1)} ms  p95 ${fmt(quantile(base, 0.95), 1)} ms`,
        `ours      GET /reports/revenue-attribution (API) p50 ${fmt(quantile(api, 0.5), 1)} ms  p95 ${fmt(quantile(api, 0.95), 1)} ms`,
        `ratio     ${fmt(quantile(api, 0.5) / quantile(base, 0.5), 2)} (API p50 / SQL p50); target API p50 <= 300 ms`,
        `reference one GROUP BY scan of the window's conversions, no rollup: p50 ${fmt(quantile(scan, 0.5), 1)} ms (5 runs)`,
      ].join('\n') + '\n',
    );
  } finally {
    await db.end();
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
