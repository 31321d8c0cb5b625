// `node -r ./test/imports/ts-register.js test/resilience/dev-run.ts [fuzz] [tenancy] [smtp-fuzz]
// [inbound-smtp-fuzz]`
// runs the hostile-input sections against the development context (build first: npm run build).
import { writeFileSync } from 'node:fs';
import { startDevContext } from './dev-context';
import { runFuzz } from './fuzz';
import { runInboundSmtpFuzz } from './inbound-smtp-fuzz';
import { runSmtpFuzz } from './smtp-fuzz';
import type { Reporter, SummaryRow } from './support/context';
import { runTenancy } from './tenancy';

async function main(): Promise<void> {
  const wanted = process.argv.slice(2);
  const sections = wanted.length ? wanted : ['fuzz', 'tenancy', 'smtp-fuzz', 'inbound-smtp-fuzz'];
  const rows: SummaryRow[] = [];
  const reporter: Reporter = {
    record(row) {
      rows.push(row);
      console.log(JSON.stringify(row));
    },
  };
  const dev = await startDevContext();
  if (sections[0] === 'serve') {
    // Keeps the platform up for manual requests: prints an organization's key, logs to stdout.
    const org = await dev.ctx.createOrg('Manual');
    console.log(JSON.stringify({ apiUrl: dev.ctx.apiUrl, relay: dev.ctx.relay, org }));
    let shown = 0;
    setInterval(() => {
      const lines = dev.ctx.logs();
      for (; shown < lines.length; shown++) console.log(lines[shown]);
    }, 500);
    process.on('SIGTERM', () => void dev.stop().then(() => process.exit(0)));
    return;
  }
  let failed = false;
  try {
    for (const section of sections) {
      const started = Date.now();
      try {
        if (section === 'fuzz') await runFuzz(dev.ctx, reporter);
        else if (section === 'tenancy') await runTenancy(dev.ctx, reporter);
        else if (section === 'smtp-fuzz') await runSmtpFuzz(dev.ctx, reporter);
        else if (section === 'inbound-smtp-fuzz') await runInboundSmtpFuzz(dev.ctx, reporter);
        else throw new Error(`unknown section ${section}`);
      } catch (err) {
        failed = true;
        console.error(`${section} failed:`, err);
      }
      console.log(`${section}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
    }
  } finally {
    if (process.env.RESILIENCE_DEV_LOGS) {
      writeFileSync(process.env.RESILIENCE_DEV_LOGS, dev.ctx.logs().join('\n') + '\n');
    }
    await dev.stop();
  }
  console.table(rows);
  if (failed || rows.some((r) => !r.passed)) process.exitCode = 1;
}

void main();
