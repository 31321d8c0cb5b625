// contact.* events reach webhook endpoints, directly and through the outbox and its sweeper.
import { INestApplication } from '@nestjs/common';
import { ContactEvents, WebhookEvents } from '@app/domain';
import { DataSource } from 'typeorm';
import { createSession, Session } from '../support/session';
import { createApiApp, createWorker, Receiver, testConfig, waitFor } from './webhook-support';

const ENDPOINTS = '/api/v1/user/webhook-endpoints';

interface EventData {
  contact: { id: string; emails: { email: string }[] } & Record<string, unknown>;
  [key: string]: unknown;
}

describe('Contact events reach webhook endpoints', () => {
  let api: INestApplication;
  let worker: INestApplication;
  let receiver: Receiver;
  let s: Session;

  beforeAll(async () => {
    // The worker's own sweeps (every webhookScanIntervalMs) are kept out of the way: the outbox
    // tests run `sweep()` themselves and count what each call raised.
    const config = testConfig('contact-events', {
      webhookAllowPrivateTargets: true,
      webhookScanIntervalMs: 3_600_000,
    });
    api = await createApiApp(config);
    worker = await createWorker(config);
    receiver = await new Receiver().start();
    s = await createSession(api, { plan: 'pro' });
    await s.http
      .post(ENDPOINTS, {
        url: `${receiver.url}/hook`,
        events: [
          'contact.created',
          'contact.updated',
          'contact.deleted',
          'contact.unsubscribed',
          'push.token_invalidated',
        ],
      })
      .expect(201);
  });
  afterAll(async () => {
    await worker.close();
    await api.close();
    await receiver.stop();
  });

  const bodies = () =>
    receiver.requests.map((r) => JSON.parse(r.body) as { type: string; data: EventData });
  const seen = (type: string, n = 1) =>
    waitFor(
      () =>
        bodies().filter((b) => b.type === type).length >= n
          ? bodies().filter((b) => b.type === type)
          : null,
      {
        what: `${n} ${type}`,
      },
    );

  it('sends created, updated, unsubscribed, push.token_invalidated and deleted with their data', async () => {
    const created = await s.http
      .post('/api/v1/user/contacts', { firstName: 'Ada', emails: [{ email: 'ada@example.com' }] })
      .expect(201);
    const id: string = created.body.data.id;
    const [c] = await seen('contact.created');
    expect(c.data.contact).toMatchObject({ id, firstName: 'Ada', displayName: 'Ada' });
    expect(c.data.contact.emails[0].email).toBe('ada@example.com');

    await s.http.patch(`/api/v1/user/contacts/${id}`, { lastName: 'Lovelace' }).expect(200);
    const updates = await seen('contact.updated');
    expect(updates.at(-1)!.data.contact).toMatchObject({ id, lastName: 'Lovelace' });

    const push = await s.http
      .post(`/api/v1/user/contacts/${id}/push`, { deviceToken: 'tok-123', platform: 'ios' })
      .expect(201);
    await s.http
      .patch(`/api/v1/user/contacts/${id}/push/${push.body.data.id}`, { status: 'expired' })
      .expect(200);
    const [inv] = await seen('push.token_invalidated');
    expect(inv.data).toEqual({
      contactId: id,
      pushNotificationId: push.body.data.id,
      platform: 'ios',
      status: 'expired',
      reason: 'update',
    });

    const list = await s.http.post('/api/v1/user/contact-lists', { name: 'News' }).expect(201);
    await s.http.post(`/api/v1/user/contact-lists/${list.body.data.id}/members`, {
      contactIds: [id],
    });
    await s.http
      .post(`/api/v1/user/contact-lists/${list.body.data.id}/members/${id}/unsubscribe`, {
        reason: 'too many',
      })
      .expect((r) => expect(r.status).toBeLessThan(300));
    const [unsub] = await seen('contact.unsubscribed');
    expect(unsub.data).toEqual({ contactId: id, contactListId: list.body.data.id });

    await s.http
      .delete(`/api/v1/user/contacts/${id}`)
      .expect((r) => expect(r.status).toBeLessThan(300));
    const [deleted] = await seen('contact.deleted');
    expect(deleted.data).toEqual({ contact: { id } });
  });

  describe('through the outbox', () => {
    const outbox = (): Promise<
      { id: string; type: string; attempts: number; last_error: string | null }[]
    > =>
      api.get(DataSource).query(
        `SELECT id::text AS id, type, attempts, last_error FROM contact_event_outbox
            WHERE organization_id = $1 ORDER BY id`,
        [s.org.id],
      );
    /** Makes the organization's outbox rows due now, as if their grace period had passed. */
    const makeDue = () =>
      api.get(DataSource).query(
        `UPDATE contact_event_outbox SET next_attempt_at = now() - interval '1 second'
            WHERE organization_id = $1`,
        [s.org.id],
      );
    const newContact = async (firstName: string): Promise<string> => {
      const r = await s.http.post('/api/v1/user/contacts', { firstName }).expect(201);
      return r.body.data.id as string;
    };
    /** The webhook bus the app's ContactEvents raises its events through. */
    const busOf = (app: INestApplication) =>
      (app.get(ContactEvents) as unknown as { webhooks: WebhookEvents }).webhooks;
    const received = (type: string, id: string) =>
      bodies().filter((b) => b.type === type && b.data.contact?.id === id);

    it('leaves nothing in the outbox once the events are raised after the commit', async () => {
      const id = await newContact('Grace');
      await seen('contact.created', 1);
      await waitFor(() => received('contact.created', id).length === 1, { what: 'the event' });
      expect(await outbox()).toEqual([]);
    });

    it('keeps the event of a committed change the bus refused, and the sweeper raises it once', async () => {
      const id = await newContact('Edsger');
      await waitFor(() => received('contact.created', id).length === 1, { what: 'created' });
      // The database restarts between the change's commit and the webhook deliveries' insert.
      const refused = jest
        .spyOn(busOf(api), 'emitManyWithin')
        .mockRejectedValueOnce(new Error('the database system is shutting down'));
      try {
        await s.http.patch(`/api/v1/user/contacts/${id}`, { lastName: 'Dijkstra' }).expect(200);
        expect(refused).toHaveBeenCalledTimes(1);
      } finally {
        refused.mockRestore();
      }
      const [row] = await outbox();
      expect(row).toMatchObject({ type: 'contact.updated', attempts: 0 });

      // The sweeper leaves a fresh row to its own process; once due, it raises it.
      const sweeper = worker.get(ContactEvents);
      expect(await sweeper.sweep()).toBe(0);
      await makeDue();
      expect(await sweeper.sweep()).toBe(1);
      const [update] = await waitFor(
        () => {
          const got = received('contact.updated', id);
          return got.length ? got : null;
        },
        { what: 'the swept contact.updated' },
      );
      expect(update.data.contact).toMatchObject({ id, lastName: 'Dijkstra' });
      expect(await outbox()).toEqual([]);
    });

    it('retries a row whose raise fails in the sweeper, with the error recorded', async () => {
      const id = await newContact('Barbara');
      await waitFor(() => received('contact.created', id).length === 1, { what: 'created' });
      const refused = jest
        .spyOn(busOf(api), 'emitManyWithin')
        .mockRejectedValueOnce(new Error('connection terminated'));
      const refusedAgain = jest
        .spyOn(busOf(worker), 'emitManyWithin')
        .mockRejectedValueOnce(new Error('connection terminated again'));
      try {
        await s.http.patch(`/api/v1/user/contacts/${id}`, { lastName: 'Liskov' }).expect(200);
        await makeDue();
        expect(await worker.get(ContactEvents).sweep()).toBe(0);
        expect(refused).toHaveBeenCalledTimes(1);
        expect(refusedAgain).toHaveBeenCalledTimes(1);
      } finally {
        refused.mockRestore();
        refusedAgain.mockRestore();
      }
      const [row] = await outbox();
      expect(row).toMatchObject({
        type: 'contact.updated',
        attempts: 1,
        last_error: 'connection terminated again',
      });
      await makeDue();
      expect(await worker.get(ContactEvents).sweep()).toBe(1);
      await waitFor(() => received('contact.updated', id).length === 1, { what: 'the retry' });
      expect(await outbox()).toEqual([]);
    });

    it('raises each row once when two sweepers take the same due rows', async () => {
      const ids = await Promise.all(['A', 'B', 'C', 'D', 'E', 'F'].map((n) => newContact(n)));
      await waitFor(() => ids.every((id) => received('contact.created', id).length === 1), {
        what: 'created',
      });
      // As if the api process had died after committing these deletes.
      const db = api.get(DataSource);
      const [{ t0 }] = await db.query(`SELECT clock_timestamp() AS t0`);
      await db.query(
        `INSERT INTO contact_event_outbox
                (organization_id, type, contact_id, occurred_at, next_attempt_at)
         SELECT $1, 'contact.deleted', id, now(), now() - interval '1 second'
           FROM unnest($2::uuid[]) AS id`,
        [s.org.id, ids],
      );
      const swept = await Promise.all([
        worker.get(ContactEvents).sweep(),
        api.get(ContactEvents).sweep(),
      ]);
      expect(swept[0] + swept[1]).toBe(ids.length);
      await waitFor(() => ids.every((id) => received('contact.deleted', id).length >= 1), {
        what: 'the deletes',
      });
      const [{ n }] = await db.query(
        `SELECT count(*)::int AS n FROM webhook_deliveries
          WHERE organization_id = $1 AND type = 'contact.deleted' AND created_at >= $2`,
        [s.org.id, t0],
      );
      expect(n).toBe(ids.length);
      expect(await outbox()).toEqual([]);
    });
  });
});
