// Fault: SIGKILL of the worker while webhook deliveries are being retried. One endpoint's receiver
// drops every connection, then recovers; another never answers. Every delivery must end
// `delivered` or `failed`, with one attempt row per counted attempt.
import type { Reporter } from '../support/context';
import type { Platform } from '../support/harness';
import { dataOf, ApiClient } from '../support/api-client';
import { log, sleep } from '../support/util';
import { waitFor } from '../../support/wait-for';

export interface DeliveryTotals {
  total: number;
  pending: number;
  delivered: number;
  failed: number;
  /** Deliveries whose attempt_count differs from their attempt rows, or that have none. */
  attemptsMismatch: number;
}

/** Terminal states and attempt bookkeeping of every delivery of an endpoint. */
export async function deliveryTotals(p: Platform, endpointId: string): Promise<DeliveryTotals> {
  const r = await p.db.query<Record<keyof DeliveryTotals, string>>(
    `SELECT count(*) AS total,
            count(*) FILTER (WHERE d.status = 'pending') AS pending,
            count(*) FILTER (WHERE d.status = 'delivered') AS delivered,
            count(*) FILTER (WHERE d.status = 'failed') AS failed,
            count(*) FILTER (WHERE d.status <> 'pending'
                               AND (d.attempt_count < 1 OR d.attempt_count <> coalesce(a.n, 0)))
              AS "attemptsMismatch"
       FROM webhook_deliveries d
       LEFT JOIN (SELECT webhook_delivery_id, count(*) AS n FROM webhook_attempts
                   GROUP BY webhook_delivery_id) a ON a.webhook_delivery_id = d.id
      WHERE d.webhook_endpoint_id = $1`,
    [endpointId],
  );
  const row = r.rows[0];
  return {
    total: Number(row.total),
    pending: Number(row.pending),
    delivered: Number(row.delivered),
    failed: Number(row.failed),
    attemptsMismatch: Number(row.attemptsMismatch),
  };
}

export async function createEndpoint(
  p: Platform,
  http: ApiClient,
  hook: string,
  body: Record<string, unknown>,
): Promise<string> {
  const ep = dataOf<{ id: string; secret: string }>(
    await http.post('/api/v1/user/webhook-endpoints', { url: p.receiver.hookUrl(hook), ...body }),
    'create webhook endpoint',
    [201],
  );
  p.receiver.setSecret(hook, ep.secret);
  return ep.id;
}

export async function workerKillDuringWebhookRetries(
  p: Platform,
  reporter: Reporter,
  events = 100,
): Promise<void> {
  const org = await p.createOrg('Resilience webhooks');
  const http = new ApiClient(p.apiUrl).withKey(org.apiKey);
  const tag = Date.now();
  const flakyHook = `flaky-${tag}`;
  const hangHook = `hang-${tag}`;
  p.receiver.setMode(flakyHook, 'drop');
  p.receiver.setMode(hangHook, 'hang');
  const flaky = await createEndpoint(p, http, flakyHook, {
    events: ['contact.created'],
    maxRetries: 10,
    timeoutSeconds: 3,
  });
  const hang = await createEndpoint(p, http, hangHook, {
    events: ['contact.created'],
    maxRetries: 3,
    timeoutSeconds: 1,
  });
  let requests = 2;
  let errors = 0;
  for (let i = 0; i < events; i += 10) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(10, events - i) }, (_, j) =>
        http.post('/api/v1/user/contacts', {
          firstName: `Hook${i + j}`,
          emails: [{ email: `hook${i + j}.${tag}@resilience.example` }],
        }),
      ),
    );
    requests += batch.length;
    errors += batch.filter((r) => r.status !== 201).length;
  }

  // Kill while both endpoints have deliveries in their retry schedule.
  await waitFor(
    async () => {
      const r = await p.db.query<{ n: string }>(
        `SELECT count(DISTINCT webhook_endpoint_id) AS n FROM webhook_attempts a
           JOIN webhook_deliveries d ON d.id = a.webhook_delivery_id
          WHERE d.organization_id = $1 AND a.attempt_number >= 2`,
        [org.id],
      );
      return Number(r.rows[0].n) === 2;
    },
    { what: 'first attempts on both endpoints', timeoutMs: 120_000 },
  );
  log('webhook retries under way: SIGKILL worker');
  await p.restartWorker('SIGKILL', 2000);
  await sleep(5000);
  log('flaky webhook receiver recovers');
  p.receiver.setMode(flakyHook, 'ok');

  const settle = async (id: string) =>
    waitFor(
      async () => {
        const t = await deliveryTotals(p, id);
        return t.pending === 0 ? t : undefined;
      },
      { what: 'every delivery to end', timeoutMs: 6 * 60_000, everyMs: 1000 },
    ).catch(() => deliveryTotals(p, id));
  const [f, h] = [await settle(flaky), await settle(hang)];
  const receivedFlaky = p.receiver.delivered(flakyHook);
  const deliveredIds = await p.db.query<{ id: string }>(
    `SELECT id FROM webhook_deliveries WHERE webhook_endpoint_id = $1 AND status = 'delivered'`,
    [flaky],
  );
  const notReceived = deliveredIds.rows.filter((r) => !receivedFlaky.has(r.id)).length;
  const repeats = [...receivedFlaky.values()].filter((n) => n > 1).length;
  const hangExhausted = await p.db.query<{ n: string }>(
    `SELECT count(*) AS n FROM webhook_deliveries WHERE webhook_endpoint_id = $1
        AND status = 'failed' AND attempt_count = 3 AND error_message LIKE 'Max retries exceeded%'`,
    [hang],
  );
  const badSignatures = p.receiver.stats(flakyHook).badSignatures;
  const lost =
    f.pending + h.pending + (events - f.total) + (events - h.total) + notReceived + f.failed;
  const passed =
    errors === 0 &&
    f.total === events &&
    h.total === events &&
    f.delivered === events &&
    h.failed === events &&
    Number(hangExhausted.rows[0].n) === events &&
    f.attemptsMismatch === 0 &&
    h.attemptsMismatch === 0 &&
    notReceived === 0 &&
    badSignatures === 0;
  reporter.record({
    section: 'fault',
    name: 'SIGKILL worker during webhook retries',
    requests,
    errors: errors + f.attemptsMismatch + h.attemptsMismatch + badSignatures,
    lost,
    passed,
    notes:
      `recovering receiver: ${f.delivered}/${events} delivered, ${f.failed} failed, ${f.pending} pending` +
      (repeats ? `, ${repeats} received twice (at-least-once)` : '') +
      `; silent receiver: ${h.failed}/${events} failed after 3 attempts, ${h.pending} pending; ` +
      `attempt rows ≠ attempt_count: ${f.attemptsMismatch + h.attemptsMismatch}`,
  });
}
