// Load: mixed traffic at a fixed rate (open loop) for RESILIENCE_LOAD_SECONDS: contacts reads and
// writes, API sends, relay transactions over SMTP (nodemailer) and the webhook deliveries the
// contact writes raise. Reports p50/p99 per route and the errors; asserts that every acknowledged
// email reached the sink exactly once and every webhook delivery was delivered.
import nodemailer from 'nodemailer';
import type { Reporter } from './support/context';
import type { Platform } from './support/harness';
import { dataOf, ApiClient } from './support/api-client';
import { openLoop, routeStats, Sample, statsTable } from './support/open-loop';
import { log, percentile } from './support/util';
import { createEndpoint, deliveryTotals } from './faults/webhooks';
import { sendOne, settleLedger } from './faults/sends';
import { waitFor } from '../support/wait-for';

export interface LoadOptions {
  seconds: number;
  /** HTTP requests per second across the API routes. */
  rate: number;
  /** Relay transactions per second. */
  relayRate: number;
}

export async function mixedLoad(
  p: Platform,
  reporter: Reporter & { addSection(title: string, md: string): void },
  opts: LoadOptions,
): Promise<void> {
  const org = await p.createOrg('Resilience load');
  const http = new ApiClient(p.apiUrl, {}, 30_000).withKey(org.apiKey);
  const hook = `load-${Date.now()}`;
  const endpoint = await createEndpoint(p, http, hook, {
    events: ['contact.created', 'contact.updated'],
    maxRetries: 5,
    timeoutSeconds: 10,
  });
  const tag = Date.now();
  const contactIds: string[] = [];
  for (let i = 0; i < 50; i++) {
    contactIds.push(
      dataOf<{ id: string }>(
        await http.post('/api/v1/user/contacts', {
          firstName: `Seed${i}`,
          emails: [{ email: `seed${i}.${tag}@resilience.example` }],
        }),
        'seed contact',
        [201],
      ).id,
    );
  }
  const seedEvents = contactIds.length;
  const jobIds: string[] = [];
  const ackedEmails: string[] = [];
  const ackedAt = new Map<string, number>();
  let contactWrites = 0;
  let i = 0;

  const relay = nodemailer.createTransport({
    pool: true,
    host: '127.0.0.1',
    port: p.relayPort,
    secure: false,
    ignoreTLS: true,
    auth: { user: 'resilience', pass: org.apiKey },
    maxConnections: 4,
    maxMessages: Infinity,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
  });

  const R = opts.rate;
  const ops = [
    {
      route: 'GET /api/v1/user/contacts',
      rate: R * 0.25,
      run: () => http.get(`/api/v1/user/contacts?limit=20&page=${1 + (i++ % 5)}`),
    },
    {
      route: 'GET /api/v1/user/contacts/:id',
      rate: R * 0.2,
      run: () => http.get(`/api/v1/user/contacts/${contactIds[i++ % contactIds.length]}`),
    },
    {
      route: 'POST /api/v1/user/contacts',
      rate: R * 0.15,
      run: async () => {
        const k = i++;
        const r = await http.post<{ data?: { id: string } }>('/api/v1/user/contacts', {
          firstName: `Load${k}`,
          lastName: 'Traffic',
          emails: [{ email: `load${k}.${tag}@resilience.example` }],
          tags: ['load'],
        });
        if (r.status === 201 && r.body?.data?.id) {
          contactIds.push(r.body.data.id);
          contactWrites++;
        }
        return r;
      },
    },
    {
      route: 'PATCH /api/v1/user/contacts/:id',
      rate: R * 0.1,
      run: async () => {
        const k = i++;
        const r = await http.patch(`/api/v1/user/contacts/${contactIds[k % contactIds.length]}`, {
          firstName: `Changed${k}`,
        });
        if (r.status === 200) contactWrites++;
        return r;
      },
    },
    {
      route: 'POST /api/v1/send',
      rate: R * 0.2,
      run: async () => {
        const k = i++;
        const r = await sendOne(http, `to${k}.${tag}@resilience.example`, `Load ${tag} #${k}`);
        if (r.status === 202 && r.body?.data) {
          ackedEmails.push(r.body.data.messageId);
          ackedAt.set(r.body.data.messageId, Date.now());
          jobIds.push(r.body.data.jobId);
        }
        return r;
      },
    },
    {
      route: 'GET /api/v1/user/messages/:jobId',
      rate: R * 0.1,
      run: async () =>
        jobIds.length
          ? http.get(`/api/v1/user/messages/${jobIds[i++ % jobIds.length]}`)
          : http.get('/api/v1/user/messages?limit=5'),
    },
    {
      route: 'SMTP relay transaction',
      rate: opts.relayRate,
      run: async () => {
        const k = i++;
        const messageId = `<relay-${k}.${tag}@resilience.example>`;
        try {
          const info = (await relay.sendMail({
            from: 'Relay <relay@resilience.example>',
            to: `relay${k}.${tag}@resilience.example`,
            subject: `Relay ${tag} #${k}`,
            text: 'Sent through the SMTP relay under load',
            messageId,
          })) as { response?: string };
          if (/^250 /.test(info.response ?? '')) {
            ackedEmails.push(messageId);
            ackedAt.set(messageId, Date.now());
            return { status: 250 };
          }
          return { status: 0, error: `relay answered ${info.response}` };
        } catch (err) {
          const e = err as { responseCode?: number; message: string };
          return { status: e.responseCode ?? 0, error: e.responseCode ? undefined : e.message };
        }
      },
    },
  ];

  log(`load: ${opts.seconds} s at ${R} req/s HTTP + ${opts.relayRate} relay msg/s`);
  const run = await openLoop(ops, opts.seconds * 1000);
  relay.close();
  log(`load done: ${run.samples.length} operations; draining deliveries`);

  const isOk = (s: Sample) => (s.status >= 200 && s.status < 300) || s.status === 250;
  const stats = routeStats(run.samples, isOk);
  const errors = stats.reduce((sum, s) => sum + s.errors, 0) + run.shed;

  const emails = await settleLedger(p, ackedEmails, 5 * 60_000);
  const expectedEvents = seedEvents + contactWrites;
  const hooks = await waitFor(
    async () => {
      const t = await deliveryTotals(p, endpoint);
      return t.pending === 0 && t.total >= expectedEvents ? t : undefined;
    },
    { what: 'every load webhook delivery to end', timeoutMs: 5 * 60_000, everyMs: 1000 },
  ).catch(() => deliveryTotals(p, endpoint));
  const receivedIds = p.receiver.delivered(hook);
  const deliveredRows = await p.db.query<{ id: string; lag: string }>(
    `SELECT id, extract(epoch FROM delivered_at - created_at) * 1000 AS lag
       FROM webhook_deliveries WHERE webhook_endpoint_id = $1 AND status = 'delivered'`,
    [endpoint],
  );
  const notReceived = deliveredRows.rows.filter((r) => !receivedIds.has(r.id)).length;
  const hookLag = deliveredRows.rows.map((r) => Number(r.lag));
  const sinkLag = p.sink
    .messages()
    .filter((m) => m.messageId && ackedAt.has(m.messageId))
    .map((m) => m.receivedAt - ackedAt.get(m.messageId!)!);
  const badSignatures = p.receiver.stats(hook).badSignatures;

  const lostEmails = emails.missing;
  const lostHooks =
    Math.max(0, expectedEvents - hooks.total) + hooks.pending + hooks.failed + notReceived;
  const r0 = (n: number) => Math.round(n).toLocaleString('en-US');
  reporter.addSection(
    `Load: ${opts.seconds} s, ${R} HTTP req/s + ${opts.relayRate} relay msg/s (open loop)`,
    statsTable(stats) +
      `\n\n| Pipeline | Items | p50 ms | p99 ms |\n|---|---:|---:|---:|\n` +
      `| email acknowledged → at the sink | ${r0(sinkLag.length)} | ${r0(percentile(sinkLag, 50))} | ${r0(percentile(sinkLag, 99))} |\n` +
      `| webhook event stored → delivered | ${r0(hookLag.length)} | ${r0(percentile(hookLag, 50))} | ${r0(percentile(hookLag, 99))} |\n` +
      `\nGenerator: ${run.shed} operations shed (too many in flight), schedule lag p99 ${r0(run.scheduleLagP99)} ms.`,
  );
  const passed =
    errors === 0 &&
    lostEmails === 0 &&
    emails.duplicated === 0 &&
    lostHooks === 0 &&
    hooks.attemptsMismatch === 0 &&
    badSignatures === 0;
  reporter.record({
    section: 'load',
    name: `mixed traffic ${opts.seconds} s at ${R + opts.relayRate}/s`,
    requests: run.samples.length,
    errors: errors + emails.duplicated + hooks.attemptsMismatch + badSignatures,
    lost: lostEmails + lostHooks,
    passed,
    notes:
      `${emails.acknowledged} emails acknowledged (API + relay) → ${emails.deliveredOnce} once, ${emails.missing} missing, ` +
      `${emails.duplicated} twice; ${hooks.total}/${expectedEvents} webhook deliveries, ${hooks.delivered} delivered, ` +
      `${hooks.failed} failed, ${hooks.pending} pending`,
  });
}
