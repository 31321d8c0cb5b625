// Webhook delivery end to end: signature, headers, outcomes, retries, resend, the queue, the log.
import { INestApplication } from '@nestjs/common';
import { asOrgId, Events, OrgId } from '@app/domain';
import { createHmac } from 'node:crypto';
import { DataSource } from 'typeorm';
import { client, createKey, createSession, Session } from '../support/session';
import {
  createApiApp,
  createWorker,
  emitEvent,
  Receiver,
  Received,
  storedIn,
  testConfig,
} from './webhook-support';
import { SteeredClock } from '../support/clock';
import { holdsFor, waitFor } from '../support/wait-for';

const ENDPOINTS = '/api/v1/user/webhook-endpoints';
const DELIVERIES = '/api/v1/user/webhook-deliveries';
const BASE_MS = 300;
const SCAN_MS = 50;

/** What a customer's receiver does: HMAC-SHA256 over "<t>.<raw body>" with the secret. */
function verifies(secret: string, r: Received): boolean {
  const header = String(r.headers['x-webhook-signature']);
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header);
  if (!m) return false;
  const expected = createHmac('sha256', secret).update(`${m[1]}.${r.body}`).digest('hex');
  return expected === m[2];
}

describe('Webhook delivery (e2e)', () => {
  const clock = new SteeredClock();
  let api: INestApplication;
  let worker: INestApplication;
  let receiver: Receiver;
  let s: Session;
  let ds: DataSource;

  beforeAll(async () => {
    const config = testConfig('delivery', {
      webhookRetryBaseMs: BASE_MS,
      webhookScanIntervalMs: SCAN_MS,
      webhookAllowPrivateTargets: true,
    });
    api = await createApiApp(config);
    worker = await createWorker(config, clock);
    receiver = await new Receiver().start();
    ds = api.get(DataSource);
    s = await createSession(api, { plan: 'enterprise' });
  });
  afterAll(async () => {
    await worker.close();
    await api.close();
    await receiver.stop();
  });
  beforeEach(() => {
    receiver.behaviour = () => ({ status: 200, body: 'ok' });
  });

  async function endpoint(body: object = {}, session: Session = s) {
    const res = await session.http
      .post(ENDPOINTS, { url: `${receiver.url}/hook`, events: ['contact.created'], ...body })
      .expect(201);
    return res.body.data as { id: string; secret: string };
  }

  async function sendTest(endpointId: string): Promise<string> {
    const res = await s.http.post(`${ENDPOINTS}/${endpointId}/test`).expect(201);
    expect(res.body.data).toMatchObject({ type: 'test.event', status: 'pending', attemptCount: 0 });
    return res.body.data.id;
  }

  const receivedFor = (id: string, n = 1) =>
    waitFor(
      () => {
        const seen = receiver.forDelivery(id);
        return seen.length >= n ? seen : undefined;
      },
      { what: `${n} request(s) of delivery ${id}` },
    );

  /** Read through the database's organization, whichever session created it. */
  const delivery = async (id: string) => {
    const [row] = await ds.query(`SELECT organization_id FROM webhook_deliveries WHERE id = $1`, [
      id,
    ]);
    const owner =
      row.organization_id === s.org.id ? s : await sessionOf(asOrgId(row.organization_id));
    return (await owner.http.get(`${DELIVERIES}/${id}`).expect(200)).body.data;
  };
  const sessions = new Map<string, Session>();
  const sessionOf = async (orgId: OrgId) => {
    const known = sessions.get(orgId);
    if (known) return known;
    const { value } = await createKey(api, orgId);
    const session = { ...s, http: client(api, { 'X-API-Key': value }) };
    sessions.set(orgId, session);
    return session;
  };

  const settled = (id: string, timeoutMs = 15_000) =>
    waitFor(
      async () => {
        const d = await delivery(id);
        return d.status !== 'pending' ? d : undefined;
      },
      { timeoutMs, what: `delivery ${id} to settle` },
    );

  describe('signature and headers', () => {
    it('signs with the creation secret; the body is the envelope; built-in headers are set', async () => {
      const ep = await endpoint();
      const id = await sendTest(ep.id);
      const [req] = await receivedFor(id);
      expect(verifies(ep.secret, req)).toBe(true);
      expect(req.headers['content-type']).toBe('application/json');
      expect(req.headers['x-webhook-event']).toBe('test.event');
      expect(req.headers['x-webhook-delivery-id']).toBe(id);
      const t = Number(/^t=(\d+)/.exec(String(req.headers['x-webhook-signature']))![1]);
      const body = JSON.parse(req.body);
      expect(Object.keys(body)).toEqual(['delivery_id', 'type', 'timestamp', 'data']);
      expect(body).toMatchObject({ delivery_id: id, type: 'test.event' });
      expect(new Date(body.timestamp).toISOString()).toBe(body.timestamp);
      const d = await settled(id);
      expect(d).toMatchObject({
        status: 'delivered',
        attemptCount: 1,
        httpStatusCode: 200,
        responseBody: 'ok',
      });
      expect(d.deliveredAt).toEqual(expect.any(String));
      expect(d.payload).toEqual(body);
      // The signature is stamped with the attempt's start, in seconds.
      expect(t).toBe(Math.floor(Date.parse(d.attempts[0].startedAt) / 1000));
    });

    it('after regenerate-secret only the new secret verifies', async () => {
      const ep = await endpoint();
      const regen = await s.http.post(`${ENDPOINTS}/${ep.id}/regenerate-secret`).expect(200);
      const fresh = regen.body.data.secret as string;
      const id = await sendTest(ep.id);
      const [req] = await receivedFor(id);
      expect(verifies(fresh, req)).toBe(true);
      expect(verifies(ep.secret, req)).toBe(false);
    });

    it('uses the endpoint as it is now for a delivery after one was sent (secret, headers)', async () => {
      // The dispatcher keeps endpoints it has read by row version: a change must be seen.
      const ep = await endpoint({ customHeaders: [{ key: 'X-Tenant', value: 'before' }] });
      const [first] = await receivedFor(await sendTest(ep.id));
      expect(first.headers['x-tenant']).toBe('before');
      expect(verifies(ep.secret, first)).toBe(true);
      const regen = await s.http.post(`${ENDPOINTS}/${ep.id}/regenerate-secret`).expect(200);
      const fresh = regen.body.data.secret as string;
      await s.http
        .patch(`${ENDPOINTS}/${ep.id}`, { customHeaders: [{ key: 'X-Tenant', value: 'after' }] })
        .expect(200);
      const [second] = await receivedFor(await sendTest(ep.id));
      expect(second.headers['x-tenant']).toBe('after');
      expect(verifies(fresh, second)).toBe(true);
      expect(verifies(ep.secret, second)).toBe(false);
    });

    it('sends custom headers, which replace a built-in of the same name case-insensitively', async () => {
      const ep = await endpoint({
        customHeaders: [
          { key: 'X-Tenant', value: 'acme' },
          { key: 'x-webhook-event', value: 'replaced' },
          { key: 'Authorization', value: 'Bearer t0k3n' },
        ],
      });
      const id = await sendTest(ep.id);
      const [req] = await receivedFor(id);
      expect(req.headers['x-tenant']).toBe('acme');
      expect(req.headers['authorization']).toBe('Bearer t0k3n');
      expect(req.headers['x-webhook-event']).toBe('replaced');
      const sent = req.rawHeaders.filter((_, i) => i % 2 === 0).map((h) => h.toLowerCase());
      expect(sent.filter((h) => h === 'x-webhook-event')).toHaveLength(1);
      expect(verifies(ep.secret, req)).toBe(true);
    });
  });

  describe('outcomes and retries', () => {
    it('a 500 answer is one attempt and failed, with the status and the first 4 KB of the body', async () => {
      receiver.behaviour = () => ({ status: 500, body: 'E'.repeat(10_000) });
      const ep = await endpoint();
      const id = await sendTest(ep.id);
      const d = await settled(id);
      expect(d).toMatchObject({
        status: 'failed',
        attemptCount: 1,
        httpStatusCode: 500,
        nextRetryAt: null,
      });
      expect(d.responseBody).toHaveLength(4096);
      expect(d.errorMessage).toBe('HTTP 500 response');
      expect(d.attempts).toHaveLength(1);
      expect(d.attempts[0]).toMatchObject({ attemptNumber: 1, httpStatusCode: 500 });
      expect(d.attempts[0].responseBody).toHaveLength(4096);
      await holdsFor(() => expect(receiver.forDelivery(id)).toHaveLength(1), {
        forMs: BASE_MS * 3,
      });
      expect((await delivery(id)).attemptCount).toBe(1);
    });

    it('does not follow a redirect: a 302 is an HTTP answer, failed at once', async () => {
      receiver.behaviour = (r) =>
        r.headers['x-webhook-event'] === 'test.event'
          ? { status: 302, body: 'moved' }
          : { status: 200 };
      const ep = await endpoint();
      const id = await sendTest(ep.id);
      const d = await settled(id);
      expect(d).toMatchObject({ status: 'failed', attemptCount: 1, httpStatusCode: 302 });
      expect(receiver.forDelivery(id)).toHaveLength(1);
    });

    it('a receiver that never answers gets exactly maxRetries attempts at base·2^(n−1), then failed', async () => {
      receiver.behaviour = () => 'hang';
      const ep = await endpoint({ maxRetries: 4, timeoutSeconds: 1 });
      // The worker's clock stands still from here, moved by the test only: each attempt starts
      // and ends at the clock's time, so the rows show the rule's times exactly.
      clock.freeze();
      try {
        const id = await sendTest(ep.id);
        let d: Awaited<ReturnType<typeof delivery>>;
        for (let n = 1; n <= 4; n++) {
          d = await waitFor(
            async () => {
              const now = await delivery(id);
              return now.attemptCount === n ? now : undefined;
            },
            { what: `attempt ${n} recorded`, timeoutMs: 30_000 },
          );
          const attempt = d.attempts[n - 1];
          expect(attempt).toMatchObject({
            attemptNumber: n,
            httpStatusCode: null,
            errorMessage: 'Request timed out after 1s',
          });
          expect(Date.parse(attempt.startedAt)).toBe(clock.now().getTime());
          if (n === 4) break;
          // Pending, its next attempt due base·2^(n−1) after this one ended (at the clock's time).
          const wait = BASE_MS * 2 ** (n - 1);
          expect(d).toMatchObject({ status: 'pending', attemptCount: n });
          expect(Date.parse(d.nextRetryAt)).toBe(Date.parse(attempt.startedAt) + wait);
          // Not a millisecond before it: the scan passes it by while the clock is short of it.
          clock.advance(wait - 1);
          await holdsFor(async () => expect((await delivery(id)).attemptCount).toBe(n), {
            forMs: SCAN_MS * 4,
          });
          clock.advance(1);
        }
        expect(d).toMatchObject({ status: 'failed', attemptCount: 4, nextRetryAt: null });
        expect(d.errorMessage).toBe('Max retries exceeded. Last error: Request timed out after 1s');
        // No fifth attempt, even a day later; the receiver saw the same body every time.
        clock.advance(24 * 3600_000);
        await holdsFor(() => expect(receiver.forDelivery(id)).toHaveLength(4), {
          forMs: SCAN_MS * 4,
        });
        const seen = receiver.forDelivery(id);
        expect(new Set(seen.map((r) => r.body)).size).toBe(1);
      } finally {
        clock.release();
      }
    });

    it('no response then 200: pending with nextRetryAt, then delivered on the retry', async () => {
      let first = true;
      receiver.behaviour = () => {
        if (first) {
          first = false;
          return 'destroy';
        }
        return { status: 204 };
      };
      const ep = await endpoint();
      const id = await sendTest(ep.id);
      const pending = await waitFor(async () => {
        const d = await delivery(id);
        return d.attemptCount === 1 ? d : undefined;
      });
      if (pending.status === 'pending') expect(pending.nextRetryAt).toEqual(expect.any(String));
      const d = await settled(id);
      expect(d).toMatchObject({ status: 'delivered', attemptCount: 2, httpStatusCode: 204 });
      expect(d.attempts[0].httpStatusCode).toBeNull();
      expect(d.attempts[0].errorMessage).toMatch(
        /^Connection (reset by peer|closed before a response)$/,
      );
    });

    it('a refused connection is retried like a timeout', async () => {
      const closed = new Receiver();
      await closed.start();
      const url = `${closed.url}/gone`;
      await closed.stop();
      const ep = await endpoint({ url, maxRetries: 2 });
      const id = await sendTest(ep.id);
      const d = await settled(id);
      expect(d).toMatchObject({
        status: 'failed',
        attemptCount: 2,
        errorMessage: 'Max retries exceeded. Last error: Connection refused',
      });
    });
  });

  describe('resend', () => {
    it('answers 400 for a delivered delivery', async () => {
      const ep = await endpoint();
      const id = await sendTest(ep.id);
      await settled(id);
      const res = await s.http.post(`${DELIVERIES}/${id}/retry`).expect(400);
      expect(res.body).toEqual({
        success: false,
        message: 'Cannot retry a delivery that has already been delivered',
        code: 'E_BUSINESS_RULE_VIOLATION',
      });
      expect(receiver.forDelivery(id)).toHaveLength(1);
    });

    it('leaves an exhausted delivery failed and does not send it', async () => {
      receiver.behaviour = () => ({ status: 503 });
      const ep = await endpoint({ maxRetries: 1 });
      const id = await sendTest(ep.id);
      await settled(id);
      receiver.behaviour = () => ({ status: 200 });
      const res = await s.http.post(`${DELIVERIES}/${id}/retry`).expect(200);
      expect(res.body.data).toMatchObject({ status: 'failed', attemptCount: 1 });
      await holdsFor(() => expect(receiver.forDelivery(id)).toHaveLength(1), {
        forMs: BASE_MS + SCAN_MS * 4,
      });
      expect(await delivery(id)).toMatchObject({ status: 'failed', attemptCount: 1 });
    });

    it('turns a pending delivery whose attempts are used up into failed, without sending', async () => {
      receiver.behaviour = () => 'destroy';
      const ep = await endpoint({ maxRetries: 5 });
      const id = await sendTest(ep.id);
      await waitFor(async () => (await delivery(id)).attemptCount === 1);
      await s.http.patch(`${ENDPOINTS}/${ep.id}`, { maxRetries: 1 }).expect(200);
      const res = await s.http.post(`${DELIVERIES}/${id}/retry`).expect(200);
      expect(res.body.data.status).toBe('failed');
      expect(res.body.data.errorMessage).toMatch(/^Max retries exceeded\. Last error: /);
      const before = receiver.forDelivery(id).length;
      await holdsFor(() => expect(receiver.forDelivery(id)).toHaveLength(before), {
        forMs: BASE_MS * 2 + SCAN_MS * 4,
      });
      expect((await delivery(id)).status).toBe('failed');
    });

    it('otherwise sends again at once: same delivery_id, timestamp and body; attemptCount kept', async () => {
      receiver.behaviour = () => ({ status: 500 });
      const ep = await endpoint({ maxRetries: 5 });
      const id = await sendTest(ep.id);
      await settled(id);
      receiver.behaviour = () => ({ status: 200 });
      // A failed delivery has no retry of its own: a second request is the one asked for.
      expect(receiver.forDelivery(id)).toHaveLength(1);
      const asked = Date.now();
      const res = await s.http.post(`${DELIVERIES}/${id}/retry`).expect(200);
      expect(res.body.data).toMatchObject({ id, attemptCount: 1 });
      expect(['pending', 'delivered']).toContain(res.body.data.status);
      const seen = await receivedFor(id, 2);
      expect(seen[1].at).toBeGreaterThanOrEqual(asked);
      expect(seen[1].body).toBe(seen[0].body);
      expect(JSON.parse(seen[1].body)).toMatchObject({ delivery_id: id });
      expect(verifies(ep.secret, seen[1])).toBe(true);
      const d = await settled(id);
      expect(d).toMatchObject({ status: 'delivered', attemptCount: 2 });
    });
  });

  describe('work queue', () => {
    const counts = async (ids: string[]) =>
      (
        await ds.query(
          `SELECT (SELECT count(*) FROM webhook_deliveries WHERE id = ANY($1))::int AS deliveries,
             (SELECT count(*) FROM webhook_attempts WHERE webhook_delivery_id = ANY($1))::int AS attempts,
             (SELECT count(*) FROM webhook_delivery_queue WHERE delivery_id = ANY($1))::int AS queued`,
          [ids],
        )
      )[0] as { deliveries: number; attempts: number; queued: number };

    it('queues a delivery while it is pending only; removing the endpoint removes its deliveries, attempts and queue rows', async () => {
      receiver.behaviour = () => 'destroy';
      const ep = await endpoint({ maxRetries: 5 });
      const retrying = await sendTest(ep.id);
      await waitFor(async () => (await delivery(retrying)).attemptCount >= 1);
      expect((await counts([retrying])).queued).toBe(1);
      receiver.behaviour = () => ({ status: 200 });
      const done = await sendTest(ep.id);
      expect((await settled(done)).status).toBe('delivered');
      expect(await counts([done])).toEqual({ deliveries: 1, attempts: 1, queued: 0 });
      await s.http.delete(`${ENDPOINTS}/${ep.id}`).expect(200);
      expect(await counts([retrying, done])).toEqual({ deliveries: 0, attempts: 0, queued: 0 });
    });
  });

  describe('active endpoints only', () => {
    it('events while inactive are neither stored nor sent after reactivation', async () => {
      const ep = await endpoint({ events: ['contact.updated'] });
      await s.http.patch(`${ENDPOINTS}/${ep.id}`, { isActive: false }).expect(200);
      const stored = await emitEvent(api, s.org.id, 'contact.updated', { contactId: 'c-inactive' });
      expect(stored).toEqual([]);
      await s.http.post(`${ENDPOINTS}/${ep.id}/test`).expect(409);
      await s.http.patch(`${ENDPOINTS}/${ep.id}`, { isActive: true }).expect(200);
      await holdsFor(
        () => expect(receiver.requests.filter((r) => r.body.includes('c-inactive'))).toEqual([]),
        { forMs: SCAN_MS * 6 },
      );
      const [{ count }] = await ds.query(
        `SELECT count(*)::int AS count FROM webhook_deliveries WHERE webhook_endpoint_id = $1`,
        [ep.id],
      );
      expect(count).toBe(0);
      expect(receiver.requests.filter((r) => r.body.includes('c-inactive'))).toHaveLength(0);
      // Active again: the next event is stored and sent.
      const [id] = await emitEvent(api, s.org.id, 'contact.updated', { contactId: 'c-active' });
      expect((await settled(id)).status).toBe('delivered');
      // The event data is encrypted at rest; the request carried it in clear.
      const [row] = await ds.query(`SELECT data FROM webhook_deliveries WHERE id = $1`, [id]);
      expect(row.data).toMatch(/^v1:/);
      expect(row.data).not.toContain('c-active');
      expect(JSON.parse(receiver.forDelivery(id)[0].body).data).toEqual({ contactId: 'c-active' });
    });

    it('emit stores one delivery per active subscribed endpoint and the test event goes to one endpoint', async () => {
      const org = await createSession(api, { plan: 'pro' });
      const mk = async (evs: string[], isActive = true) =>
        (
          await org.http
            .post(ENDPOINTS, { url: `${receiver.url}/multi`, events: evs, isActive })
            .expect(201)
        ).body.data.id as string;
      const a = await mk(['contact.deleted', 'test.event']);
      const b = await mk(['contact.deleted']);
      await mk(['contact.created']);
      await mk(['contact.deleted'], false);
      const ids = await emitEvent(api, org.org.id, 'contact.deleted', { contactId: 'x' });
      expect(ids).toHaveLength(2);
      const rows = await ds.query(
        `SELECT webhook_endpoint_id FROM webhook_deliveries WHERE id = ANY($1)`,
        [ids],
      );
      expect(
        rows.map((r: { webhook_endpoint_id: string }) => r.webhook_endpoint_id).sort(),
      ).toEqual([a, b].sort());
      const testId = (await org.http.post(`${ENDPOINTS}/${b}/test`).expect(201)).body.data.id;
      const [{ count }] = await ds.query(
        `SELECT count(*)::int AS count FROM webhook_deliveries WHERE organization_id = $1 AND type = 'test.event'`,
        [org.org.id],
      );
      expect(count).toBe(1);
      await settled(testId).catch(() => undefined);
    });

    it('a delivery whose endpoint was deactivated before its retry ends failed without an attempt', async () => {
      receiver.behaviour = () => 'destroy';
      const own = await createSession(api);
      const ep = await endpoint({ events: ['contact.created'] }, own);
      const [id] = await emitEvent(api, own.org.id, 'contact.created', { contactId: 'c1' });
      await waitFor(async () => (await delivery(id)).attemptCount === 1);
      await own.http.patch(`${ENDPOINTS}/${ep.id}`, { isActive: false }).expect(200);
      const d = await settled(id);
      expect(d).toMatchObject({
        status: 'failed',
        attemptCount: 1,
        errorMessage: 'Webhook endpoint is inactive',
      });
    });

    it('recovers a stored delivery whose wake-up was lost (scan after the grace period)', async () => {
      const own = await createSession(api);
      const ep = await endpoint({ events: ['contact.created'] }, own);
      // Stored as a producer stores it, but the dispatchers are never woken.
      const ids = await emitEvent(
        api,
        own.org.id,
        'contact.created',
        { contactId: 'lost-wake-up' },
        { wake: false },
      );
      expect(ids).toHaveLength(1);
      await holdsFor(async () => expect((await delivery(ids[0])).status).toBe('pending'), {
        forMs: SCAN_MS * 4,
        everyMs: SCAN_MS,
      });
      await ds.query(
        `UPDATE webhook_delivery_queue SET queued_at = now() - interval '1 minute' WHERE delivery_id = $1`,
        ids,
      );
      const d = await settled(ids[0]);
      expect(d.status).toBe('delivered');
      expect(d.webhookEndpointId).toBe(ep.id);
    });

    it('wakes the dispatcher when a producer transaction commits, not before', async () => {
      const own = await createSession(api);
      await endpoint({ events: ['contact.created'] }, own);
      const events = api.get(Events);
      let ids: string[] = [];
      await ds.transaction(async (em) => {
        await events.emit(em, own.org.id, [{ type: 'contact.created', data: { contactId: 'tx' } }]);
        ids = await storedIn(em, own.org.id);
        // A wake-up while the transaction is open announces nothing of it.
        events.wake();
        await holdsFor(() => expect(receiver.forDelivery(ids[0])).toEqual([]), {
          forMs: SCAN_MS * 2,
        });
      });
      // The scan leaves rows younger than 30 s to wake-ups: one sent sooner was woken.
      events.wake();
      await waitFor(() => receiver.forDelivery(ids[0]).length === 1, {
        what: 'the woken delivery',
        timeoutMs: 15_000,
      });
    });
  });

  describe('GET /webhook-deliveries', () => {
    let org: Session;
    let epA: string;
    let epB: string;
    const all: string[] = [];

    beforeAll(async () => {
      org = await createSession(api, { plan: 'pro' });
      receiver.behaviour = (r) =>
        r.headers['x-webhook-event'] === 'contact.deleted' ? { status: 410 } : { status: 200 };
      epA = (
        await org.http
          .post(ENDPOINTS, {
            url: `${receiver.url}/a`,
            events: ['contact.created', 'contact.deleted'],
          })
          .expect(201)
      ).body.data.id;
      epB = (
        await org.http
          .post(ENDPOINTS, { url: `${receiver.url}/b`, events: ['contact.created'] })
          .expect(201)
      ).body.data.id;
      for (let i = 0; i < 3; i++) {
        all.push(...(await emitEvent(api, org.org.id, 'contact.created', { i })));
        all.push(...(await emitEvent(api, org.org.id, 'contact.deleted', { i })));
      }
      await waitFor(async () => {
        const [{ n }] = await ds.query(
          `SELECT count(*)::int AS n FROM webhook_deliveries WHERE organization_id = $1 AND status = 'pending'`,
          [org.org.id],
        );
        return n === 0;
      });
    });

    it('pages newest first with a cursor until hasMore is false', async () => {
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const q: string = cursor ? `?limit=4&cursor=${encodeURIComponent(cursor)}` : '?limit=4';
        const res = await org.http.get(`${DELIVERIES}${q}`).expect(200);
        expect(res.body.meta).toEqual({
          limit: 4,
          hasMore: expect.any(Boolean),
          nextCursor: res.body.meta.hasMore ? expect.any(String) : null,
        });
        seen.push(...res.body.data.map((d: { id: string }) => d.id));
        cursor = res.body.meta.nextCursor;
        pages += 1;
      } while (cursor);
      expect(pages).toBe(3);
      expect(seen).toHaveLength(9);
      expect(new Set(seen)).toEqual(new Set(all));
      const rows = await ds.query(
        `SELECT id FROM webhook_deliveries WHERE organization_id = $1 ORDER BY created_at DESC, id DESC`,
        [org.org.id],
      );
      expect(seen).toEqual(rows.map((r: { id: string }) => r.id));
    });

    it('filters by endpoint, repeated status and type; includeAttempts adds attempts', async () => {
      const byEp = await org.http
        .get(`${DELIVERIES}?webhookEndpointId=${epB}&limit=100`)
        .expect(200);
      expect(byEp.body.data).toHaveLength(3);
      expect(
        byEp.body.data.every((d: { webhookEndpointId: string }) => d.webhookEndpointId === epB),
      ).toBe(true);
      expect(byEp.body.data[0].attempts).toBeUndefined();

      const failed = await org.http.get(`${DELIVERIES}?status=failed`).expect(200);
      expect(failed.body.data).toHaveLength(3);
      const both = await org.http
        .get(`${DELIVERIES}?status=failed&status=delivered&limit=100`)
        .expect(200);
      expect(both.body.data).toHaveLength(9);
      const none = await org.http.get(`${DELIVERIES}?status=pending`).expect(200);
      expect(none.body.data).toHaveLength(0);

      const typed = await org.http
        .get(`${DELIVERIES}?type=contact.deleted&webhookEndpointId=${epA}&includeAttempts=true`)
        .expect(200);
      expect(typed.body.data).toHaveLength(3);
      for (const d of typed.body.data) {
        expect(d).toMatchObject({ type: 'contact.deleted', status: 'failed', httpStatusCode: 410 });
        expect(d.attempts).toHaveLength(1);
        expect(d.attempts[0]).toMatchObject({ attemptNumber: 1, httpStatusCode: 410 });
      }
    });

    it('validates the query', async () => {
      for (const q of [
        'limit=0',
        'limit=101',
        'status=sent',
        'webhookEndpointId=x',
        'cursor=abc',
        'includeAttempts=yes',
        'type=nope',
      ]) {
        const res = await org.http.get(`${DELIVERIES}?${q}`).expect(422);
        expect(res.body.code).toBe('E_VALIDATION_ERROR');
      }
    });

    it("hides another organization's deliveries: 404 on get and retry, absent from lists", async () => {
      const other = await createSession(api);
      await other.http.get(`${DELIVERIES}/${all[0]}`).expect(404);
      await other.http.post(`${DELIVERIES}/${all[0]}/retry`).expect(404);
      const list = await other.http.get(`${DELIVERIES}?limit=100`).expect(200);
      expect(list.body.data).toEqual([]);
      const filtered = await other.http.get(`${DELIVERIES}?webhookEndpointId=${epA}`).expect(200);
      expect(filtered.body.data).toEqual([]);
    });
  });
});
