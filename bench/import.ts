// npm run bench -- import [--rows 1000000] [--partial true|false] [--list NAME] [--keep] [--embedded]
//                         [--again]
// (BENCH_EMBEDDED_INITDB_FLAGS: initdb flags of the fresh embedded cluster, e.g. --no-data-checksums)
//
// Generates a CSV (email, first and last name, phone, two custom fields, tags), then in the same
// run measures
//   baseline: a plain COPY of the file into an unindexed table (client-side COPY FROM STDIN);
//   ours:     the import of the same file into one organization through a spawned, compiled worker
//             (uploaded, started and followed by `admin import-file --via-worker`), wall time from
//             start to completed, rows/s, and the worker's peak RSS (VmHWM of /proc/<pid>/status).
// The import writes contacts with encrypted, blind-indexed emails and phone numbers and two tags
// per row (plus a list membership with --list), with every index and trigger of the contacts
// schema live. The database server is BENCH_ADMIN_DATABASE_URL's (default: the local one on 5432)
// or, with --embedded, the product's default: the embedded PostgreSQL with the settings the apps
// start it with (libs/domain/src/database/embedded-postgres.ts), in a fresh data directory. The
// bench prints the server's version and the settings that matter for a bulk load. With --again
// the same file is then imported a second time into the same organization (every row a duplicate,
// skipped), and the bench checks that the organization's totals stayed exact.
import { ChildProcess, spawn } from 'node:child_process';
import {
  createReadStream,
  createWriteStream,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
} from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { parseArgs } from 'node:util';
import { Client } from 'pg';
import { startEmbeddedPostgres } from '@app/domain';
import {
  admin,
  benchDatabase,
  benchEnv,
  fmt,
  httpReady,
  processCpuMs,
  ROOT,
  stop,
} from './support/harness';

const { values: args } = parseArgs({
  options: {
    rows: { type: 'string', default: '1000000' },
    partial: { type: 'string', default: 'true' },
    keep: { type: 'boolean', default: false },
    /** Also subscribe every contact to this list (one membership per row). */
    list: { type: 'string' },
    /** Run against a fresh embedded PostgreSQL started as the apps start it. */
    embedded: { type: 'boolean', default: false },
    /** Then import the same file again into the same organization (duplicates skipped). */
    again: { type: 'boolean', default: false },
  },
});
const ROWS = Number(args.rows);
const HEALTH_PORT = 3917;
const TAGS = ['vip', 'newsletter', 'trial', 'customer', 'lead', 'partner'];

async function generate(path: string): Promise<number> {
  const out = createWriteStream(path);
  out.write('email,first_name,last_name,phone,plan,score,tags\n');
  let chunk = '';
  for (let i = 1; i <= ROWS; i++) {
    const phone = `+1415${String(1_000_000 + ((i * 7919) % 9_000_000)).padStart(7, '0')}`;
    chunk +=
      `user${i}@example.com,First${i % 5000},Last${(i * 31) % 7000},${phone},` +
      `plan${i % 4},${i % 1000},${TAGS[i % TAGS.length]};${TAGS[(i + 3) % TAGS.length]}\n`;
    if (chunk.length > 1 << 20) {
      if (!out.write(chunk)) await once(out, 'drain');
      chunk = '';
    }
  }
  out.end(chunk);
  await once(out, 'finish');
  return ROWS;
}

/** COPY ... FROM STDIN fed from a file stream (pg has no COPY helper of its own). */
function copyFrom(client: Client, sql: string, path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const submittable = {
      submit(connection: { query(text: string): void }) {
        connection.query(sql);
      },
      handleCopyInResponse(connection: {
        sendCopyFromChunk(b: Buffer): void;
        endCopyFrom(): void;
        stream: NodeJS.WritableStream & { writableNeedDrain: boolean };
      }) {
        const file = createReadStream(path, { highWaterMark: 1 << 20 });
        file.on('data', (b) => {
          connection.sendCopyFromChunk(b as Buffer);
          if (connection.stream.writableNeedDrain) {
            file.pause();
            connection.stream.once('drain', () => file.resume());
          }
        });
        file.on('end', () => connection.endCopyFrom());
        file.on('error', reject);
      },
      handleCommandComplete() {},
      handleReadyForQuery() {
        resolve();
      },
      handleError(err: Error) {
        reject(err);
      },
    };
    void client.query(submittable as never);
  });
}

/** CPU seconds of a local PostgreSQL: the postmaster, its exited (reaped) and its live children. */
function serverCpuSeconds(dataDir: string): number {
  try {
    const pid = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    const fields = (p: number | string) => {
      const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
      return stat
        .slice(stat.lastIndexOf(')') + 2)
        .split(' ')
        .map(Number);
    };
    const own = fields(pid);
    let ticks = own[11] + own[12] + own[13] + own[14];
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
    for (const c of children ? children.split(' ') : []) {
      const f = fields(c);
      ticks += f[11] + f[12];
    }
    return ticks / 100;
  } catch {
    return NaN;
  }
}

function peakRss(child: ChildProcess): number {
  const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
  const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb * 1024;
}

/** The server's version and its settings that weigh on a bulk load. */
async function describeServer(pg: Client, kind: string): Promise<string> {
  const { rows } = await pg.query<{ name: string; setting: string }>(
    `SELECT name, current_setting(name) AS setting FROM pg_settings
      WHERE name IN ('shared_buffers', 'max_wal_size', 'checkpoint_timeout', 'wal_compression',
                     'bgwriter_lru_maxpages', 'synchronous_commit', 'full_page_writes',
                     'data_checksums')
      ORDER BY name`,
  );
  const [{ v }] = (await pg.query<{ v: string }>(`SELECT current_setting('server_version') AS v`))
    .rows;
  return `server            ${kind}, PostgreSQL ${v}: ${rows.map((r) => `${r.name}=${r.setting}`).join(' ')}`;
}

/**
 * The second run's figures, and whether the organization's totals are still exact: as many
 * contacts as rows, the contact counters' sum, and each tag's counters against the contacts
 * that carry it.
 */
async function checkAgain(
  pg: Client,
  orgId: string,
  run: { imp: Record<string, unknown>; seconds: number },
): Promise<string[]> {
  const [{ n, counted }] = (
    await pg.query(
      `SELECT (SELECT count(*)::int FROM contacts WHERE organization_id = $1) AS n,
              (SELECT sum(total)::int FROM contact_counters WHERE organization_id = $1) AS counted`,
      [orgId],
    )
  ).rows;
  const tags = (
    await pg.query<{ name: string; counted: number; actual: number }>(
      `SELECT t.name,
              (SELECT coalesce(sum(total), 0)::int FROM contact_tag_counters WHERE tag_id = t.id)
                AS counted,
              (SELECT count(*)::int FROM contacts c
                WHERE c.organization_id = $1 AND t.id = ANY(c.tag_ids)) AS actual
         FROM contact_tags t WHERE t.organization_id = $1 ORDER BY t.name`,
      [orgId],
    )
  ).rows;
  const exact =
    n === ROWS && counted === ROWS && tags.length > 0 && tags.every((t) => t.counted === t.actual);
  const { imp, seconds } = run;
  return [
    `again (skip)      import (${imp.status}): ${fmt(seconds, 1)} s, ${fmt(ROWS / seconds)} rows/s; new ${fmt(imp.newCount as number)}, duplicates ${fmt(imp.duplicateCount as number)}, errors ${fmt(imp.errorCount as number)}`,
    `totals            ${fmt(n)} contacts, counters ${fmt(counted)}, tags ${tags.map((t) => `${t.name} ${fmt(t.counted)}/${fmt(t.actual)}`).join(' ')}: ${exact ? 'exact' : 'NOT EXACT'}`,
  ];
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'mp-bench-import-'));
  const csv = join(dir, 'contacts.csv');
  process.stderr.write(`generating ${fmt(ROWS)} rows...\n`);
  await generate(csv);

  // Its own directory, readable by the OS user the server runs as when the bench runs as root.
  const serverRoot = join(tmpdir(), `mp-bench-import-pg-${process.pid}`);
  if (args.embedded) mkdirSync(serverRoot, { recursive: true, mode: 0o755 });
  const server = args.embedded
    ? await startEmbeddedPostgres(
        serverRoot,
        Number(process.env.BENCH_EMBEDDED_PG_PORT || 54398),
        undefined,
        // e.g. "--no-data-checksums" (PostgreSQL 18's initdb turns checksums on by default).
        (process.env.BENCH_EMBEDDED_INITDB_FLAGS || '').split(' ').filter(Boolean),
      )
    : null;
  const adminUrl = server ? server.url.replace(/\/[^/]*$/, '/postgres') : undefined;
  const url = await benchDatabase(
    process.env.BENCH_IMPORT_DATABASE || 'mp_bench_imports',
    adminUrl,
  );
  const env = benchEnv(url, {
    DATA_DIR: join(dir, 'data'),
    WORKER_HEALTH_PORT: String(HEALTH_PORT),
    RUN_MIGRATIONS: 'false',
    LOG_LEVEL: 'info',
  });
  admin(env, ['migrate']);
  const org = admin(env, ['create-org', '--name', 'Import bench']) as {
    organization: { id: string };
  };

  // Baseline: the same bytes into an unindexed table.
  const pg = new Client({ connectionString: url });
  await pg.connect();
  await pg.query(
    `CREATE TABLE bench_copy (email text, first_name text, last_name text, phone text, plan text, score text, tags text)`,
  );
  const serverLine = await describeServer(pg, server ? 'embedded' : 'DATABASE_URL');
  const serverDir = join(serverRoot, 'pg');
  const c0 = process.hrtime.bigint();
  await copyFrom(pg, `COPY bench_copy FROM STDIN WITH (FORMAT csv, HEADER true)`, csv);
  const copySeconds = Number(process.hrtime.bigint() - c0) / 1e9;
  const [{ n: copied }] = (await pg.query(`SELECT count(*)::int AS n FROM bench_copy`)).rows;
  await pg.query(`DROP TABLE bench_copy`);

  // The worker, compiled, in its own process; its JSON log goes to a file.
  const workerLog = join(dir, 'worker.log');
  const worker = spawn(
    process.execPath,
    [
      // BENCH_NODE_ARGS adds flags to the worker, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof".
      ...(process.env.BENCH_NODE_ARGS ? process.env.BENCH_NODE_ARGS.split(' ') : []),
      '-r',
      join(ROOT, 'scripts/alias.js'),
      join(ROOT, 'dist/bench/apps/worker/src/main.js'),
    ],
    { env, stdio: ['ignore', openSync(workerLog, 'w'), 'inherit'] },
  );
  for (let i = 0; ; i++) {
    if (await httpReady(`http://127.0.0.1:${HEALTH_PORT}/health`).catch(() => false)) break;
    if (worker.exitCode !== null || i > 150) throw new Error('the worker did not start');
    await new Promise((r) => setTimeout(r, 200));
  }
  const load = loadavg()[0];
  const cliArgs = [
    'import-file',
    '--org',
    org.organization.id,
    '--file',
    csv,
    '--map',
    'email=email,first_name=firstName,last_name=lastName,phone=phoneNumber,' +
      'plan=customFields.plan,score=customFields.score,tags=tags',
    '--via-worker',
  ];
  if (args.list) cliArgs.push('--list', args.list);
  if (args.partial === 'true') cliArgs.push('--partial');
  /** One import of the file through the worker: the import as the CLI answers it, and its time. */
  const runImport = () => {
    const { import: done } = admin(env, cliArgs) as { import: Record<string, unknown> };
    const took =
      (Date.parse(done.completedAt as string) - Date.parse(done.startedAt as string)) / 1000;
    return { imp: done, seconds: took };
  };
  let rss = 0;
  let workerCpuMs = 0;
  const serverCpu0 = serverCpuSeconds(serverDir);
  let serverCpu = NaN;
  let first: ReturnType<typeof runImport>;
  let second: ReturnType<typeof runImport> | null = null;
  try {
    first = runImport();
    rss = peakRss(worker);
    workerCpuMs = processCpuMs(worker.pid!);
    serverCpu = serverCpuSeconds(serverDir) - serverCpu0;
    // The same file again into the same organization: every row a duplicate (skip).
    if (args.again) second = runImport();
  } finally {
    await stop(worker);
  }
  const { imp, seconds } = first;
  const [{ n: contacts }] = (
    await pg.query(`SELECT count(*)::int AS n FROM contacts WHERE organization_id = $1`, [
      org.organization.id,
    ])
  ).rows;
  const againLines = second ? await checkAgain(pg, org.organization.id, second) : [];
  await pg.end();
  await server?.stop();

  process.stdout.write(
    [
      serverLine,
      `rows              ${fmt(ROWS)} (${fmt(readFileSync(csv).length / 1e6, 1)} MB CSV), load average ${load.toFixed(1)} at start`,
      `baseline          COPY into an unindexed table: ${fmt(copySeconds, 2)} s, ${fmt(copied / copySeconds)} rows/s`,
      `ours              import (${imp.status}, partial uploads ${args.partial}): ${fmt(seconds, 1)} s, ${fmt(ROWS / seconds)} rows/s; ${fmt(contacts)} contacts, new ${fmt(imp.newCount as number)}, errors ${fmt(imp.errorCount as number)}`,
      `ratio             ${fmt(seconds / copySeconds, 1)}x the COPY's time`,
      `worker peak RSS   ${fmt(rss / 1024 / 1024)} MB (VmHWM); worker CPU ${fmt(workerCpuMs / 1000, 1)} s (start-up included)`,
      ...(server
        ? [`server CPU        ${fmt(serverCpu, 1)} s (all PostgreSQL processes, import only)`]
        : []),
      ...againLines,
    ].join('\n') + '\n',
  );
  if (!args.keep) {
    rmSync(dir, { recursive: true, force: true });
    rmSync(serverRoot, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
