// §16: at most WEBHOOK_ENDPOINT_CONCURRENCY requests in flight per endpoint, so one endpoint that
// never answers cannot hold every request slot of a worker, and its own deliveries wait without a
// slot, are not lost and go once it answers again.
import { INestApplication } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { createSession, Session } from '../support/session';
import { createApiApp, createWorker, emitEvent, Receiver, testConfig } from './webhook-support';
import { holdsFor, waitFor } from '../support/wait-for';

const ENDPOINTS = '/api/v1/user/webhook-endpoints';
const SLOTS = 50;
const PER_ENDPOINT = 10;

describe('Webhook requests in flight per endpoint (e2e)', () => {
  let api: INestApplication;
  let worker: INestApplication;
  let hanging: Receiver;
  let healthy: Receiver;
  let ds: DataSource;

  beforeAll(async () => {
    const config = testConfig('endpoint-concurrency', {
      webhookConcurrency: SLOTS,
      webhookEndpointConcurrency: PER_ENDPOINT,
      webhookScanIntervalMs: 200,
    });
    api = await createApiApp(config);
    ds = api.get(DataSource);
    worker = await createWorker(config);
    hanging = await new Receiver().start();
    hanging.behaviour = () => 'hang';
    healthy = await new Receiver().start();
  });
  afterAll(async () => {
    await hanging.stop();
    await worker.close();
    await api.close();
    await healthy.stop();
  });

  async function endpoint(s: Session, url: string): Promise<string> {
    const res = await s.http
      .post(ENDPOINTS, { url, events: ['contact.created'], timeoutSeconds: 300, maxRetries: 1 })
      .expect(201);
    return res.body.data.id;
  }

  it('keeps another organization’s latency while one endpoint hangs, then sends the held deliveries', async () => {
    const a = await createSession(api);
    const b = await createSession(api);
    const aEndpoint = await endpoint(a, `${hanging.url}/a`);
    await endpoint(b, `${healthy.url}/b`);

    // More events than the worker has request slots, to an endpoint that never answers.
    const aIds: string[] = [];
    for (let i = 0; i < SLOTS + 20; i++)
      aIds.push(...(await emitEvent(api, a.org.id, 'contact.created', { i })));
    await waitFor(() => hanging.open >= PER_ENDPOINT, { what: 'the endpoint cap to fill' });
    // The worker had every delivery claimed by now; room for a request beyond the cap would show.
    await holdsFor(() => expect(hanging.open).toBe(PER_ENDPOINT));

    // Meanwhile B's deliveries go through, one at a time and in a burst, while every request to A
    // still hangs: none waits for A's slots.
    const bIds: string[] = [];
    const emitB = async (n: number) => {
      const ids = await emitEvent(api, b.org.id, 'contact.created', { n });
      bIds.push(...ids);
      return ids;
    };
    const arrived = (ids: string[]) => ids.every((id) => healthy.forDelivery(id).length === 1);
    for (let n = 0; n < 5; n++) {
      const ids = await emitB(n);
      await waitFor(() => arrived(ids), { what: `B's delivery ${n}` });
    }
    await Promise.all(Array.from({ length: 20 }, (_, n) => emitB(100 + n)));
    await waitFor(() => arrived(bIds), { what: "B's burst" });
    expect(healthy.requests).toHaveLength(25);
    // The hanging endpoint still holds its share of the slots, and no more.
    expect(hanging.open).toBe(PER_ENDPOINT);
    expect(hanging.mostOpen).toBe(PER_ENDPOINT);

    // It answers again: every held delivery goes, none lost, never more than the cap at once.
    hanging.behaviour = () => ({ status: 200 });
    hanging.answerHanging(200);
    await waitFor(
      async () => {
        const [{ n }] = await ds.query(
          `SELECT count(*)::int AS n FROM webhook_deliveries
           WHERE webhook_endpoint_id = $1 AND status = 'delivered'`,
          [aEndpoint],
        );
        return n === aIds.length;
      },
      { timeoutMs: 20_000, what: 'every held delivery to be sent' },
    );
    const seen = new Set(hanging.requests.map((r) => String(r.headers['x-webhook-delivery-id'])));
    expect([...seen].sort()).toEqual([...aIds].sort());
    expect(hanging.requests).toHaveLength(aIds.length);
    expect(hanging.mostOpen).toBeLessThanOrEqual(PER_ENDPOINT);
  });
});
