// The event path: Events.emit in the change's transaction, the wake-up after the commit, the sweep.
import { INestApplication } from '@nestjs/common';
import { Events, EventType } from '@app/domain';
import { DataSource } from 'typeorm';
import { createSession, Session } from '../support/session';
import { createApiApp, createWorker, Receiver, testConfig } from '../webhooks/webhook-support';
import { holdsFor, waitFor } from '../support/wait-for';

const ENDPOINTS = '/api/v1/user/webhook-endpoints';
const SCAN_MS = 50;

describe(Events.name, () => {
  let api: INestApplication;
  let worker: INestApplication;
  let receiver: Receiver;
  let ds: DataSource;
  let events: Events;

  beforeAll(async () => {
    const config = testConfig('events', {
      webhookAllowPrivateTargets: true,
      webhookScanIntervalMs: SCAN_MS,
    });
    api = await createApiApp(config);
    worker = await createWorker(config);
    receiver = await new Receiver().start();
    ds = api.get(DataSource);
    events = api.get(Events);
  });
  afterAll(async () => {
    await worker.close();
    await api.close();
    await receiver.stop();
  });

  /** An organization with endpoints: two subscribed, one subscribed elsewhere, one inactive. */
  async function organization() {
    const s = await createSession(api, { plan: 'pro' });
    const endpoint = async (events: EventType[], isActive = true): Promise<string> => {
      const r = await s.http
        .post(ENDPOINTS, { url: `${receiver.url}/hook`, events, isActive })
        .expect(201);
      return r.body.data.id as string;
    };
    return {
      s,
      subscribed: [
        await endpoint(['contact.created']),
        await endpoint(['contact.created', 'contact.deleted']),
      ],
      otherType: await endpoint(['contact.deleted']),
      inactive: await endpoint(['contact.created'], false),
    };
  }

  async function deliveriesOf(s: Session) {
    const rows: { id: string; endpoint: string; queued: boolean }[] = await ds.query(
      `SELECT d.id, d.webhook_endpoint_id AS endpoint, q.delivery_id IS NOT NULL AS queued
         FROM webhook_deliveries d LEFT JOIN webhook_delivery_queue q ON q.delivery_id = d.id
        WHERE d.organization_id = $1`,
      [s.org.id],
    );
    return rows;
  }

  const created = (contactId: string) => [
    { type: 'contact.created' as const, data: { contactId } },
  ];

  it('stores nothing when the transaction it was emitted in rolls back', async () => {
    const { s } = await organization();
    await expect(
      ds.transaction(async (em) => {
        await events.emit(em, s.org.id, created('rolled-back'));
        expect(await deliveriesOf(s)).toEqual([]);
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    events.wake();
    expect(await deliveriesOf(s)).toEqual([]);
  });

  it('stores one queued delivery per active subscribed endpoint when the transaction commits', async () => {
    const o = await organization();
    await ds.transaction((em) => events.emit(em, o.s.org.id, created('committed')));
    const rows = await deliveriesOf(o.s);
    expect(rows.map((r) => r.endpoint).sort()).toEqual([...o.subscribed].sort());
    expect(rows.every((r) => r.queued)).toBe(true);

    // An endpoint inactive at the event gets nothing, now or after its reactivation.
    await o.s.http.patch(`${ENDPOINTS}/${o.inactive}`, { isActive: true }).expect(200);
    expect((await deliveriesOf(o.s)).map((r) => r.endpoint).sort()).toEqual(
      [...o.subscribed].sort(),
    );
    events.wake();
  });

  it('the dispatcher sends a committed event once woken', async () => {
    const o = await organization();
    await ds.transaction((em) => events.emit(em, o.s.org.id, created('woken')));
    events.wake();
    const ids = (await deliveriesOf(o.s)).map((r) => r.id);
    expect(ids).toHaveLength(2);
    // Fresh rows are left to wake-ups by the sweep: only the wake-up can have sent them.
    for (const id of ids)
      await waitFor(() => receiver.forDelivery(id).length === 1, { what: `delivery ${id}` });
    const [req] = receiver.forDelivery(ids[0]);
    expect(JSON.parse(req.body)).toMatchObject({
      delivery_id: ids[0],
      type: 'contact.created',
      data: { contactId: 'woken' },
    });
  });

  it('the dispatcher sweep sends a committed event whose wake-up never came', async () => {
    const o = await organization();
    await ds.transaction((em) => events.emit(em, o.s.org.id, created('never woken')));
    const ids = (await deliveriesOf(o.s)).map((r) => r.id);
    expect(ids).toHaveLength(2);
    await holdsFor(() => ids.forEach((id) => expect(receiver.forDelivery(id)).toEqual([])), {
      forMs: SCAN_MS * 4,
    });
    // As old as a lost wake-up's deliveries once the sweep's grace period has passed.
    await ds.query(
      `UPDATE webhook_delivery_queue SET queued_at = now() - interval '1 minute'
        WHERE delivery_id = ANY($1::uuid[])`,
      [ids],
    );
    for (const id of ids)
      await waitFor(() => receiver.forDelivery(id).length === 1, { what: `delivery ${id}` });
  });
});
