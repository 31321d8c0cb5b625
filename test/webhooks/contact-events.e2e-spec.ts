// contact.* events reach webhook endpoints, directly and through the outbox and its sweeper.
import { INestApplication } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { createSession, Session } from '../support/session';
import { createApiApp, createWorker, Receiver, testConfig } from './webhook-support';
import { waitFor } from '../support/wait-for';

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

  describe("in the change's own transaction", () => {
    /** The organization's stored deliveries of `type` (their data is encrypted). */
    const stored = async (type: string): Promise<number> => {
      const [{ n }] = await api
        .get(DataSource)
        .query(
          `SELECT count(*)::int AS n FROM webhook_deliveries WHERE organization_id = $1 AND type = $2`,
          [s.org.id, type],
        );
      return n as number;
    };
    const received = (type: string, id: string) =>
      bodies().filter((b) => b.type === type && b.data.contact?.id === id);

    it('has the event stored when the change answers, and sends it once', async () => {
      const before = await stored('contact.updated');
      const r = await s.http.post('/api/v1/user/contacts', { firstName: 'Grace' }).expect(201);
      const id = r.body.data.id as string;
      await s.http.patch(`/api/v1/user/contacts/${id}`, { lastName: 'Hopper' }).expect(200);
      // Committed with the change: no wait.
      expect(await stored('contact.updated')).toBe(before + 1);
      const [update] = await waitFor(
        () => {
          const got = received('contact.updated', id);
          return got.length ? got : null;
        },
        { what: 'the contact.updated' },
      );
      expect(update.data.contact).toMatchObject({ id, firstName: 'Grace', lastName: 'Hopper' });
      await waitFor(() => received('contact.created', id).length === 1, { what: 'created' });
      expect(received('contact.updated', id)).toHaveLength(1);
    });

    it('stores no event for a change that fails', async () => {
      await s.http
        .post('/api/v1/user/contacts', { emails: [{ email: 'taken@example.com' }] })
        .expect(201);
      const before = await stored('contact.created');
      await s.http
        .post('/api/v1/user/contacts', {
          firstName: 'Twice',
          emails: [{ email: 'taken@example.com' }],
        })
        .expect(409);
      expect(await stored('contact.created')).toBe(before);
    });
  });
});
