// npm run test:resilience: starts the platform on a private PostgreSQL and Redis, runs the faults,
// the load, then the fuzzer, tenancy sweep and SMTP command fuzzing, prints the summary table,
// writes it to dist/resilience-summary.md and exits non-zero when any check failed.
import { execSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { workerKillDuringCampaign } from './faults/campaigns';
import { workerKillDuringImport } from './faults/imports';
import { postgresRestartUnderLoad } from './faults/postgres';
import { redisRestartWithSendsQueued } from './faults/redis';
import { workerKillDuringWebhookRetries } from './faults/webhooks';
import { mixedLoad } from './load';
import type { Reporter, ResilienceContext, SummaryRow } from './support/context';
import { Platform } from './support/harness';
import { SummaryReporter } from './support/reporter';
import { envInt, log } from './support/util';

type Module = (ctx: ResilienceContext, reporter: Reporter) => Promise<void>;

const STEPS = [
  'import',
  'campaign',
  'webhooks',
  'redis',
  'postgres',
  'load',
  'fuzz',
  'tenancy',
  'smtp-fuzz',
  'inbound-smtp-fuzz',
] as const;
type Step = (typeof STEPS)[number];

function selectedSteps(): Set<Step> {
  const raw = process.env.RESILIENCE_ONLY;
  if (!raw) return new Set(STEPS);
  const chosen = raw.split(',').map((s) => s.trim());
  const unknown = chosen.filter((s) => !(STEPS as readonly string[]).includes(s));
  if (unknown.length) throw new Error(`RESILIENCE_ONLY: unknown step ${unknown.join(', ')}`);
  return new Set(chosen as Step[]);
}

/** The modules written beside this runner (fuzzer, tenancy, SMTP fuzzing), when present. */
function optionalModule(file: string, exportName: string): Module | null {
  const path = join(__dirname, `${file}.js`);
  if (!existsSync(path)) return null;
  const load = createRequire(__filename);
  const mod = load(path) as Record<string, unknown>;
  const fn = mod[exportName];
  if (typeof fn !== 'function') throw new Error(`${file} does not export ${exportName}`);
  return fn as Module;
}

async function main(): Promise<number> {
  const started = Date.now();
  const load1 = loadavg()[0];
  const steps = selectedSteps();
  const opts = {
    loadSeconds: envInt('RESILIENCE_LOAD_SECONDS', 300, 1),
    loadRate: envInt('RESILIENCE_LOAD_RATE', 20, 1),
    relayRate: envInt('RESILIENCE_RELAY_RATE', 2, 0),
    importRows: envInt('RESILIENCE_IMPORT_ROWS', 50_000, 1000),
    campaignRecipients: envInt('RESILIENCE_CAMPAIGN_RECIPIENTS', 3000, 200),
    pgDownSeconds: envInt('RESILIENCE_PG_DOWN_SECONDS', 10, 1),
    recoverSeconds: envInt('RESILIENCE_RECOVER_SECONDS', 30, 1),
  };
  const reporter = new SummaryReporter();
  const platform = new Platform();
  // The commit the build is made from (taken now: the checkout may move while the suite runs).
  let commit = 'unknown';
  try {
    commit = execSync('git rev-parse --short HEAD', { cwd: platform.root }).toString().trim();
  } catch {
    // not a git checkout
  }
  const stop = async () => {
    await platform.stop().catch((e: Error) => log(`cleanup: ${e.message}`));
  };
  process.once('SIGINT', () => void stop().then(() => process.exit(130)));
  process.once('SIGTERM', () => void stop().then(() => process.exit(143)));
  process.once('uncaughtException', (err) => {
    process.stderr.write(`resilience suite crashed: ${err.stack ?? err.message}\n`);
    platform.killNow();
    process.exit(2);
  });

  try {
    await platform.start();
    const ctx = platform.context();
    const step = async (
      id: Step,
      section: SummaryRow['section'],
      name: string,
      fn: () => Promise<void>,
    ) => {
      if (!steps.has(id)) return;
      log(`— ${name}`);
      const t0 = Date.now();
      const before = reporter.rows.length;
      try {
        await fn();
      } catch (err) {
        reporter.record({
          section,
          name,
          requests: 0,
          errors: 1,
          lost: 0,
          passed: false,
          notes: `aborted: ${(err as Error).message}`,
        });
      }
      const exits = platform.logs.unexpectedExits.splice(0);
      const restarted = await platform.ensureRunning();
      if (exits.length) {
        reporter.record({
          section,
          name: `${name}: platform processes stayed up`,
          requests: 0,
          errors: exits.length,
          lost: 0,
          passed: false,
          notes: `unexpected exits: ${exits
            .map((e) => `${e.process} (code ${e.code}, signal ${e.signal})`)
            .join(', ')}; restarted ${restarted.join(', ')}`,
        });
      }
      const rows = reporter.rows.slice(before);
      log(`  ${name}: ${Math.round((Date.now() - t0) / 1000)} s, ${rows.length} row(s)`);
    };

    await step('import', 'fault', 'SIGKILL worker during an import', () =>
      workerKillDuringImport(platform, reporter, opts.importRows),
    );
    await step('campaign', 'fault', 'SIGKILL worker during a campaign fan-out', () =>
      workerKillDuringCampaign(platform, reporter, opts.campaignRecipients),
    );
    await step('webhooks', 'fault', 'SIGKILL worker during webhook retries', () =>
      workerKillDuringWebhookRetries(platform, reporter),
    );
    await step('redis', 'fault', 'Redis restart with sends queued', () =>
      redisRestartWithSendsQueued(platform, reporter),
    );
    await step('postgres', 'fault', 'PostgreSQL restart under API load', () =>
      postgresRestartUnderLoad(platform, reporter, {
        rate: 30,
        downSeconds: opts.pgDownSeconds,
        recoverWithinSeconds: opts.recoverSeconds,
      }),
    );
    // Load before the hostile-input modules: their failed authentications may block the
    // loopback address on the send routes for 15 minutes (§8), which would skew the load.
    await step('load', 'load', 'mixed traffic', () =>
      mixedLoad(platform, reporter, {
        seconds: opts.loadSeconds,
        rate: opts.loadRate,
        relayRate: opts.relayRate,
      }),
    );
    const modules: [Step, SummaryRow['section'], string, string][] = [
      ['fuzz', 'fuzz', 'fuzz', 'runFuzz'],
      ['tenancy', 'tenancy', 'tenancy', 'runTenancy'],
      ['smtp-fuzz', 'smtp-fuzz', 'smtp-fuzz', 'runSmtpFuzz'],
      ['inbound-smtp-fuzz', 'smtp-fuzz', 'inbound-smtp-fuzz', 'runInboundSmtpFuzz'],
    ];
    for (const [id, section, file, exportName] of modules) {
      await step(id, section, `${file} module`, async () => {
        const fn = optionalModule(file, exportName);
        if (!fn) {
          reporter.record({
            section,
            name: `${file} module`,
            requests: 0,
            errors: 0,
            lost: 0,
            passed: false,
            skipped: true,
            notes: `not present (test/resilience/${file}.ts)`,
          });
          return;
        }
        await fn(ctx, reporter);
      });
    }
  } catch (err) {
    reporter.record({
      section: 'fault',
      name: 'suite set-up',
      requests: 0,
      errors: 1,
      lost: 0,
      passed: false,
      notes: (err as Error).message,
    });
  }
  await stop();

  const wall = Math.round((Date.now() - started) / 1000);
  const header = [
    `## Resilience suite — ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC`,
    '',
    `Commit ${commit}; wall time ${Math.floor(wall / 60)} min ${wall % 60} s; load average at start ${load1.toFixed(
      2,
    )}, at end ${loadavg()[0].toFixed(2)} (${process.env.RESILIENCE_ONLY ? `steps ${process.env.RESILIENCE_ONLY}` : 'all steps'}; ` +
      `load ${opts.loadSeconds} s at ${opts.loadRate} req/s + ${opts.relayRate} relay msg/s).`,
  ].join('\n');
  const file =
    process.env.RESILIENCE_SUMMARY_FILE || join(platform.root, 'dist/resilience-summary.md');
  const text = reporter.write(file, header);
  process.stdout.write('\n' + text + '\n');
  log(`summary written to ${file}; process logs in dist/resilience-logs/`);
  return reporter.failed.length ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err: Error) => {
    process.stderr.write(`resilience suite crashed: ${err.stack ?? err.message}\n`);
    process.exit(2);
  },
);
