// Fault: PostgreSQL stopped and started again under API load. While it is down the API answers
// 503 (never 500, never a hang); once it is back the API recovers by itself within a bound, and
// no write it acknowledged is missing.
import type { Reporter } from '../support/context';
import type { Platform } from '../support/harness';
import { dataOf, ApiClient } from '../support/api-client';
import { openLoop, routeStats, Sample, statsTable } from '../support/open-loop';
import { log, sleep } from '../support/util';
import { sendOne } from './sends';
import { createEndpoint, deliveryTotals } from './webhooks';
import { waitFor } from '../../support/wait-for';

// No answer after this long is a hang: the pool gives up connecting after 5 s; the rest is headroom
// for a machine shared with other work.
const HANG_MS = 20_000;

export async function postgresRestartUnderLoad(
  p: Platform,
  reporter: Reporter & { addSection(title: string, md: string): void },
  opts = { rate: 30, downSeconds: 10, recoverWithinSeconds: 30 },
): Promise<void> {
  const name = 'PostgreSQL restart under API load';
  if (!p.ownsPostgres) {
    reporter.record({
      section: 'fault',
      name,
      requests: 0,
      errors: 0,
      lost: 0,
      passed: false,
      skipped: true,
      notes: 'RESILIENCE_DATABASE_URL points at a server the suite cannot restart',
    });
    return;
  }
  const org = await p.createOrg('Resilience postgres');
  const http = new ApiClient(p.apiUrl, {}, HANG_MS).withKey(org.apiKey);
  // contact.created of every contact that exists, whatever the API answered while it was written.
  const hook = `pg-${Date.now()}`;
  const endpoint = await createEndpoint(p, http, hook, {
    events: ['contact.created'],
    maxRetries: 10,
    timeoutSeconds: 10,
  });
  const ids: string[] = [];
  for (let i = 0; i < 20; i++) {
    const c = dataOf<{ id: string }>(
      await http.post('/api/v1/user/contacts', { firstName: `Pg${i}` }),
      'seed contact',
      [201],
    );
    ids.push(c.id);
  }
  const createdIds: string[] = [];
  let n = 0;
  const marks = { stopping: 0, down: 0, starting: 0, up: 0 };
  const warmupMs = 5000;
  const totalMs = warmupMs + opts.downSeconds * 1000 + (opts.recoverWithinSeconds + 15) * 1000;

  const timeline = (async () => {
    await sleep(warmupMs);
    log('stopping PostgreSQL under load');
    marks.stopping = Date.now();
    await p.stopPostgres();
    marks.down = Date.now();
    await sleep(opts.downSeconds * 1000);
    marks.starting = Date.now();
    await p.startPostgres();
    marks.up = Date.now();
    log(`PostgreSQL back after ${Math.round((marks.up - marks.stopping) / 1000)} s`);
  })();
  const rate = opts.rate;
  const run = await openLoop(
    [
      {
        route: 'GET /contacts',
        rate: rate * 0.3,
        run: () => http.get('/api/v1/user/contacts?limit=10'),
      },
      {
        route: 'GET /contacts/:id',
        rate: rate * 0.3,
        run: () => http.get(`/api/v1/user/contacts/${ids[n++ % ids.length]}`),
      },
      {
        route: 'POST /contacts',
        rate: rate * 0.2,
        run: async () => {
          const r = await http.post<{ data?: { id: string } }>('/api/v1/user/contacts', {
            firstName: `During${n++}`,
          });
          if (r.status === 201 && r.body?.data?.id) createdIds.push(r.body.data.id);
          return r;
        },
      },
      { route: 'GET /health', rate: rate * 0.2, run: () => http.get('/health') },
    ],
    totalMs,
  );
  await timeline;

  // Phases by when a request was answered: before the stop, while down (stop issued → started
  // again), and after. Recovery = the first answer after which every answer is 2xx.
  const isOk = (s: Sample) => s.status >= 200 && s.status < 300;
  const before = run.samples.filter((s) => s.endedAt < marks.stopping);
  const during = run.samples.filter(
    (s) => s.startedAt >= marks.down && s.endedAt <= marks.starting,
  );
  const after = run.samples
    .filter((s) => s.startedAt >= marks.up)
    .sort((a, b) => a.startedAt - b.startedAt);
  let lastBad = -1;
  after.forEach((s, i) => {
    if (!isOk(s)) lastBad = i;
  });
  const recoveredAt = lastBad + 1 < after.length ? after[lastBad + 1].startedAt : Infinity;
  const recoverySeconds = (recoveredAt - marks.up) / 1000;
  const count = (list: Sample[], f: (s: Sample) => boolean) => list.filter(f).length;
  const fiveHundreds = count(run.samples, (s) => s.status >= 500 && s.status !== 503);
  const hangs = count(run.samples, (s) => s.error === 'timeout');
  const networkErrors = count(run.samples, (s) => s.status === 0 && s.error !== 'timeout');
  const beforeBad = count(before, (s) => !isOk(s));
  const duringNot503 = count(during, (s) => s.status !== 503 && !isOk(s));
  const during503 = count(during, (s) => s.status === 503);

  // Every contact the API acknowledged, during the transitions too, is in the database.
  const found = await p.db.query<{ n: string }>(
    `SELECT count(*) AS n FROM contacts WHERE organization_id = $1 AND id = ANY($2::uuid[])`,
    [org.id, createdIds],
  );
  const lost = createdIds.length - Number(found.rows[0].n);

  // The worker came back too: a send made after the restart reaches the sink.
  const probe = await sendOne(
    http,
    'after-restart@resilience.example',
    `After PG restart ${Date.now()}`,
  );
  const probeId = probe.body?.data?.messageId;
  const workerBack =
    probe.status === 202 &&
    (await waitFor(() => p.sink.messages().some((m) => m.messageId === probeId), {
      what: 'a send after the restart at the sink',
      timeoutMs: 60_000,
      everyMs: 500,
    }).catch(() => false));
  // Events: once every delivery ended, each contact in the database was announced exactly once.
  const hooks = await waitFor(
    async () => {
      const t = await deliveryTotals(p, endpoint);
      return t.pending === 0 ? t : undefined;
    },
    { what: 'the contact.created deliveries to end', timeoutMs: 3 * 60_000, everyMs: 1000 },
  ).catch(() => deliveryTotals(p, endpoint));
  const inDb = await p.db.query<{ id: string }>(
    `SELECT id FROM contacts WHERE organization_id = $1`,
    [org.id],
  );
  const announced = new Map<string, number>();
  for (const b of p.receiver.bodies(hook)) {
    const id = (b.data.contact as { id?: string } | undefined)?.id;
    if (b.type === 'contact.created' && id) announced.set(id, (announced.get(id) ?? 0) + 1);
  }
  const unannounced = inDb.rows.filter((r) => !announced.has(r.id)).length;
  const announcedTwice = [...announced.values()].filter((n) => n > 1).length;

  const rel = (t: number) => `${((t - marks.stopping) / 1000).toFixed(1)} s`;
  const odd = run.samples
    .filter((s) => s.error || (s.status >= 500 && s.status !== 503))
    .map(
      (s) =>
        `${s.route} ${s.error ?? s.status} (started ${rel(s.startedAt)}, ${Math.round(s.ms)} ms)`,
    );
  reporter.addSection(
    'PostgreSQL restart: answers per route',
    statsTable(routeStats(run.samples)) +
      (odd.length ? `\n\nUnexpected answers (times from the stop): ${odd.join('; ')}.` : '') +
      `\n\nDown (stop issued → ready again) ${Math.round((marks.up - marks.stopping) / 1000)} s ` +
      `(stopped ${rel(marks.down)}, start issued ${rel(marks.starting)}, ready ${rel(marks.up)}); ` +
      `${during.length} requests wholly inside the outage, ${during503} of them 503.`,
  );
  const passed =
    fiveHundreds === 0 &&
    hangs === 0 &&
    networkErrors === 0 &&
    beforeBad === 0 &&
    duringNot503 === 0 &&
    during.length > 0 &&
    recoverySeconds <= opts.recoverWithinSeconds &&
    lost === 0 &&
    workerBack &&
    unannounced === 0 &&
    announcedTwice === 0 &&
    hooks.pending === 0 &&
    hooks.failed === 0;
  reporter.record({
    section: 'fault',
    name,
    requests: run.samples.length,
    errors: fiveHundreds + hangs + networkErrors + beforeBad + duringNot503 + announcedTwice,
    lost: lost + unannounced,
    passed,
    notes:
      `${opts.downSeconds} s down; during: ${during.length} requests, ${during503} × 503, ` +
      `${duringNot503} other non-2xx; 5xx other than 503: ${fiveHundreds}; hangs > ${HANG_MS / 1000} s: ${hangs}; ` +
      `recovered ${Number.isFinite(recoverySeconds) ? recoverySeconds.toFixed(1) + ' s' : 'never'} after ready ` +
      `(bound ${opts.recoverWithinSeconds} s); ${createdIds.length} creates acknowledged, ${lost} missing; ` +
      `a send after the restart ${workerBack ? 'delivered' : 'NOT delivered within 60 s'}; ` +
      `${inDb.rows.length} contacts in DB, ${unannounced} without a contact.created webhook, ` +
      `${announcedTwice} announced twice; deliveries ${hooks.delivered} delivered, ${hooks.failed} failed, ${hooks.pending} pending`,
  });
}
