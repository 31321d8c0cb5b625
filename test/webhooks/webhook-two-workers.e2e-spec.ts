// Two workers on one database: every delivery attempted once, retries and sweeps included.
import { INestApplication } from '@nestjs/common';
import { OrgId, WebhookDispatcher } from '@app/domain';
import { DataSource } from 'typeorm';
import { createSession, Session } from '../support/session';
import { createApiApp, createWorker, emitEvent, Receiver, testConfig } from './webhook-support';
import { waitFor } from '../support/wait-for';

const ENDPOINTS = '/api/v1/user/webhook-endpoints';

/** Two worker instances (each its own wake-up listener and retry scan) on one database. */
describe('Webhook dispatch with two workers (e2e)', () => {
  let api: INestApplication;
  let workers: INestApplication[];
  let receiver: Receiver;
  let ds: DataSource;

  beforeAll(async () => {
    const config = testConfig('two-workers', {
      webhookScanIntervalMs: 50,
      webhookRetryBaseMs: 100,
      webhookConcurrency: 20,
    });
    api = await createApiApp(config);
    workers = [await createWorker(config), await createWorker(config)];
    receiver = await new Receiver().start();
    ds = api.get(DataSource);
  });
  afterAll(async () => {
    for (const w of workers) await w.close();
    await api.close();
    await receiver.stop();
  });

  const attemptsBy = () => workers.map((w) => w.get(WebhookDispatcher).attemptsMade);

  async function setup(): Promise<{ s: Session; endpointId: string }> {
    const s = await createSession(api);
    const res = await s.http
      .post(ENDPOINTS, { url: `${receiver.url}/in`, events: ['contact.created'], maxRetries: 3 })
      .expect(201);
    return { s, endpointId: res.body.data.id };
  }

  async function emitMany(orgId: OrgId, n: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < n; i += 50) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(50, n - i) }, (_, j) =>
          emitEvent(api, orgId, 'contact.created', { n: i + j }),
        ),
      );
      ids.push(...batch.flat());
    }
    return ids;
  }

  async function settle(endpointId: string, n: number) {
    await waitFor(
      async () => {
        const [{ done }] = await ds.query(
          `SELECT count(*)::int AS done FROM webhook_deliveries WHERE webhook_endpoint_id = $1 AND status <> 'pending'`,
          [endpointId],
        );
        return done === n;
      },
      { timeoutMs: 90_000, everyMs: 100, what: `${n} deliveries to settle` },
    );
  }

  async function attemptRows(endpointId: string) {
    return ds.query(
      `SELECT a.webhook_delivery_id AS id, a.attempt_number AS n, a.started_at, a.duration_ms
       FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.webhook_delivery_id
       WHERE d.webhook_endpoint_id = $1`,
      [endpointId],
    );
  }

  function seenCounts(ids: string[]): Map<string, number> {
    const wanted = new Set(ids);
    const counts = new Map<string, number>();
    for (const r of receiver.requests) {
      const id = String(r.headers['x-webhook-delivery-id']);
      if (wanted.has(id)) counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    return counts;
  }

  it('delivers 1,000 events with no delivery attempted twice', async () => {
    receiver.behaviour = () => ({
      status: 200,
      body: 'ok',
      delayMs: Math.floor(Math.random() * 5),
    });
    const { endpointId } = await setup();
    const before = attemptsBy();
    const ids = await emitMany(
      (
        await ds.query(`SELECT organization_id FROM webhook_endpoints WHERE id = $1`, [endpointId])
      )[0].organization_id,
      1000,
    );
    expect(new Set(ids).size).toBe(1000);
    await settle(endpointId, 1000);

    const [{ delivered }] = await ds.query(
      `SELECT count(*)::int AS delivered FROM webhook_deliveries WHERE webhook_endpoint_id = $1 AND status = 'delivered' AND attempt_count = 1`,
      [endpointId],
    );
    expect(delivered).toBe(1000);
    const attempts = await attemptRows(endpointId);
    expect(attempts).toHaveLength(1000);
    const counts = seenCounts(ids);
    expect(counts.size).toBe(1000);
    expect([...counts.values()].every((c) => c === 1)).toBe(true);
    // Both workers took part.
    const made = attemptsBy().map((v, i) => v - before[i]);
    expect(made[0]).toBeGreaterThan(0);
    expect(made[1]).toBeGreaterThan(0);
    expect(made[0] + made[1]).toBe(1000);
  });

  it('retries claimed by both scans are attempted once each (FOR UPDATE SKIP LOCKED)', async () => {
    const dropped = new Set<string>();
    receiver.behaviour = (r) => {
      const id = String(r.headers['x-webhook-delivery-id']);
      if (!dropped.has(id)) {
        dropped.add(id);
        return 'destroy';
      }
      return { status: 200 };
    };
    const { s, endpointId } = await setup();
    const before = attemptsBy();
    const ids = await emitMany(s.org.id, 200);
    await settle(endpointId, 200);
    const counts = seenCounts(ids);
    expect(counts.size).toBe(200);
    expect([...counts.values()].every((c) => c === 2)).toBe(true);
    const attempts = await attemptRows(endpointId);
    expect(attempts).toHaveLength(400);
    // Attempts of one delivery never overlap in time.
    const byDelivery = new Map<string, { n: number; start: number; end: number }[]>();
    for (const a of attempts) {
      const start = new Date(a.started_at).getTime();
      const list = byDelivery.get(a.id) ?? [];
      list.push({ n: a.n, start, end: start + a.duration_ms });
      byDelivery.set(a.id, list);
    }
    for (const list of byDelivery.values()) {
      list.sort((x, y) => x.n - y.n);
      expect(list.map((a) => a.n)).toEqual([1, 2]);
      expect(list[1].start).toBeGreaterThanOrEqual(list[0].end);
    }
    const made = attemptsBy().map((v, i) => v - before[i]);
    expect(made.every((m) => m > 0)).toBe(true);
  });

  it('deliveries whose wake-ups were lost are swept by both scans and still sent once each', async () => {
    receiver.behaviour = () => ({ status: 200 });
    const { s, endpointId } = await setup();
    const before = attemptsBy();
    const ids: string[] = [];
    for (let i = 0; i < 200; i++) {
      // Stored as a producer stores them, but the dispatchers are never woken.
      ids.push(
        ...(await emitEvent(api, s.org.id, 'contact.created', { lost: i }, { wake: false })),
      );
    }
    // Old enough for the scans to treat them as lost.
    await ds.query(
      `UPDATE webhook_delivery_queue SET queued_at = now() - interval '1 minute' WHERE delivery_id = ANY($1)`,
      [ids],
    );
    await settle(endpointId, 200);
    const counts = seenCounts(ids);
    expect(counts.size).toBe(200);
    expect([...counts.values()].every((c) => c === 1)).toBe(true);
    expect(await attemptRows(endpointId)).toHaveLength(200);
    const made = attemptsBy().map((v, i) => v - before[i]);
    expect(made.every((m) => m > 0)).toBe(true);
  });
});
