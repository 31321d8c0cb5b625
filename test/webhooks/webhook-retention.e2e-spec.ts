// The retention of webhook delivery history: finished deliveries older than their organization's
// messageRetentionDays go with their attempts; pending ones and younger ones stay.
import { INestApplication } from '@nestjs/common';
import { WebhookRetentionSweeper } from '@app/domain';
import { DataSource } from 'typeorm';
import { createSession, Session } from '../support/session';
import { createApiApp, createWorker, Receiver, testConfig } from './webhook-support';
import { waitFor } from '../support/wait-for';

const ENDPOINTS = '/api/v1/user/webhook-endpoints';

describe('Webhook delivery retention (e2e)', () => {
  let api: INestApplication;
  let worker: INestApplication;
  let receiver: Receiver;
  let ds: DataSource;

  beforeAll(async () => {
    const config = testConfig('retention', { webhookAllowPrivateTargets: true });
    api = await createApiApp(config);
    worker = await createWorker(config);
    receiver = await new Receiver().start();
    ds = api.get(DataSource);
  });
  afterAll(async () => {
    await worker.close();
    await api.close();
    await receiver.stop();
  });

  /** An organization with an endpoint and `n` delivered test events; returns the delivery ids. */
  async function withDeliveries(retentionDays: number, n: number) {
    const s: Session = await createSession(api, { plan: 'pro' });
    await ds.query(`UPDATE organizations SET message_retention_days = $2 WHERE id = $1`, [
      s.org.id,
      retentionDays,
    ]);
    const ep = await s.http
      .post(ENDPOINTS, { url: `${receiver.url}/hook`, events: ['test.event'] })
      .expect(201);
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const r = await s.http.post(`${ENDPOINTS}/${ep.body.data.id}/test`, {}).expect(201);
      ids.push(r.body.data.id);
    }
    await waitFor(
      async () => {
        const [{ n: done }] = await ds.query(
          `SELECT count(*)::int AS n FROM webhook_deliveries
            WHERE id = ANY($1::uuid[]) AND status = 'delivered'`,
          [ids],
        );
        return done === n;
      },
      { what: `${n} delivered` },
    );
    return { s, ids };
  }

  const stillThere = async (ids: string[]) =>
    (
      (await ds.query(`SELECT id FROM webhook_deliveries WHERE id = ANY($1::uuid[])`, [ids])) as {
        id: string;
      }[]
    ).map((r) => r.id);
  const backdate = (ids: string[], days: number) =>
    ds.query(
      `UPDATE webhook_deliveries SET created_at = created_at - make_interval(days => $2)
        WHERE id = ANY($1::uuid[])`,
      [ids, days],
    );

  it('deletes finished deliveries past the retention with their attempts, and nothing else', async () => {
    const short = await withDeliveries(1, 4);
    const long = await withDeliveries(30, 1);
    const [oldA, oldB, pending, young] = short.ids;
    await backdate([oldA, oldB, pending], 2);
    await backdate(long.ids, 2);
    // A delivery still being retried is not history yet, however old.
    await ds.query(
      `UPDATE webhook_deliveries SET status = 'pending', next_retry_at = now() + interval '1 hour'
        WHERE id = $1`,
      [pending],
    );

    await worker.get(WebhookRetentionSweeper).purgeExpired();

    expect((await stillThere(short.ids)).sort()).toEqual([pending, young].sort());
    expect(await stillThere(long.ids)).toEqual(long.ids);
    const [{ n }] = await ds.query(
      `SELECT count(*)::int AS n FROM webhook_attempts WHERE webhook_delivery_id = ANY($1::uuid[])`,
      [[oldA, oldB]],
    );
    expect(n).toBe(0);
    // Statistics count the history that is kept.
    const stats = await short.s.http.get(`${ENDPOINTS}/statistics`).expect(200);
    expect(stats.body.data.totalDeliveries).toBe(1);
    const deleted = await short.s.http.get(`/api/v1/user/webhook-deliveries/${oldA}`);
    expect(deleted.status).toBe(404);
  });
});
