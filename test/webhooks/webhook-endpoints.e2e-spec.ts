// The webhook endpoint routes: validation, plan limits, secrets, statistics, isolation.
import { INestApplication } from '@nestjs/common';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { fieldCipher } from '@app/domain';
import { createSession, NIL_UUID, Session } from '../support/session';
import { createApiApp, testConfig } from './webhook-support';

const BASE = '/api/v1/user/webhook-endpoints';
const URL_OK = 'https://hooks.example.com/in';

describe('Webhook endpoints (e2e)', () => {
  let app: INestApplication;
  let s: Session;
  let ds: DataSource;

  beforeAll(async () => {
    app = await createApiApp(testConfig('endpoints'));
    ds = app.get(DataSource);
    s = await createSession(app, { plan: 'pro' });
  });
  afterAll(() => app.close());

  const create = (session: Session, body: object) => session.http.post(BASE, body);

  it('creates an endpoint with defaults and returns a 64-hex secret once', async () => {
    const res = await create(s, { url: URL_OK, events: ['email.delivered'] }).expect(201);
    expect(res.body.success).toBe(true);
    const d = res.body.data;
    expect(d.secret).toMatch(/^[0-9a-f]{64}$/);
    expect(d).toMatchObject({
      organizationId: s.org.id,
      url: URL_OK,
      description: null,
      events: ['email.delivered'],
      isActive: true,
      maxRetries: 5,
      timeoutSeconds: 30,
      customHeaders: [],
      lastTriggeredAt: null,
      totalDeliveries: 0,
      successRate: 0,
    });
    // Stored encrypted, not as the raw value.
    const [row] = await ds.query(`SELECT secret FROM webhook_endpoints WHERE id = $1`, [d.id]);
    expect(row.secret).not.toContain(d.secret);
    expect(row.secret).toMatch(/^v1:/);

    const got = await s.http.get(`${BASE}/${d.id}`).expect(200);
    expect(got.body.data.secret).toBeUndefined();
    expect(JSON.stringify(got.body)).not.toContain(d.secret);
    const list = await s.http.get(BASE).expect(200);
    expect(JSON.stringify(list.body)).not.toContain(d.secret);
    for (const e of list.body.data) expect(e).not.toHaveProperty('secret');
    expect(list.body.meta).toMatchObject({
      total: expect.any(Number),
      perPage: 20,
      currentPage: 1,
    });
  });

  it('regenerates the secret: a new one in data.secret, different from the old', async () => {
    const created = (await create(s, { url: URL_OK, events: ['contact.created'] }).expect(201)).body
      .data;
    const res = await s.http.post(`${BASE}/${created.id}/regenerate-secret`).expect(200);
    expect(res.body.data.secret).toMatch(/^[0-9a-f]{64}$/);
    expect(res.body.data.secret).not.toBe(created.secret);
    expect(res.body.data.id).toBe(created.id);
  });

  it('refuses an empty or missing event list with "Select at least one event"', async () => {
    for (const body of [{ url: URL_OK, events: [] }, { url: URL_OK }]) {
      const res = await create(s, body).expect(422);
      expect(res.body.code).toBe('E_VALIDATION_ERROR');
      expect(res.body.errors).toEqual([
        { field: 'events', rule: 'required', message: 'Select at least one event' },
      ]);
    }
    const created = (await create(s, { url: URL_OK, events: ['email.sent'] }).expect(201)).body
      .data;
    const res = await s.http.patch(`${BASE}/${created.id}`, { events: [] }).expect(422);
    expect(res.body.errors[0]).toMatchObject({
      field: 'events',
      message: 'Select at least one event',
    });
  });

  it('refuses an unknown event name', async () => {
    const res = await create(s, { url: URL_OK, events: ['email.sent', 'nope.event'] }).expect(422);
    expect(res.body.errors[0]).toMatchObject({ field: 'events', rule: 'enum' });
  });

  it.each([
    'hooks.example.com/in',
    'ftp://example.com/x',
    'http://',
    'not a url',
    'https://u:p@example.com/',
  ])('refuses %p with "Please enter a valid URL"', async (url) => {
    const res = await create(s, { url, events: ['email.sent'] }).expect(422);
    expect(res.body.errors).toEqual([
      { field: 'url', rule: 'url', message: 'Please enter a valid URL' },
    ]);
  });

  it('validates limits of maxRetries, timeoutSeconds and custom headers', async () => {
    const bad = [
      [{ maxRetries: 21 }, 'maxRetries', 'max'],
      [{ maxRetries: 0 }, 'maxRetries', 'min'],
      [{ timeoutSeconds: 301 }, 'timeoutSeconds', 'max'],
      [{ customHeaders: [{ key: 'Bad Header', value: 'x' }] }, 'customHeaders.0.key', 'type'],
      [
        { customHeaders: [{ key: 'X-Ok', value: 'a\r\nInjected: 1' }] },
        'customHeaders.0.value',
        'type',
      ],
      [{ customHeaders: [{ key: 'Host', value: 'evil' }] }, 'customHeaders.0.key', 'enum'],
      [
        { customHeaders: [{ key: 'X-Ok', value: 'v', extra: 1 }] },
        'customHeaders.0.extra',
        'unknown',
      ],
      [{ secret: 'mine' }, 'secret', 'unknown'],
    ] as const;
    for (const [extra, field, rule] of bad) {
      const res = await create(s, { url: URL_OK, events: ['email.sent'], ...extra }).expect(422);
      expect(res.body.errors).toEqual(
        expect.arrayContaining([expect.objectContaining({ field, rule })]),
      );
    }
    const headers = Array.from({ length: 21 }, (_, i) => ({ key: `X-H${i}`, value: 'v' }));
    const res = await create(s, {
      url: URL_OK,
      events: ['email.sent'],
      customHeaders: headers,
    }).expect(422);
    expect(res.body.errors[0]).toMatchObject({ field: 'customHeaders', rule: 'maxLength' });
    await create(s, {
      url: URL_OK,
      events: ['email.sent'],
      maxRetries: 20,
      timeoutSeconds: 300,
      customHeaders: Array.from({ length: 20 }, (_, i) => ({ key: `X-H${i}`, value: 'v' })),
    }).expect(201);
  });

  it('updates url, description, events, isActive, headers, timeout and maxRetries', async () => {
    const created = (await create(s, { url: URL_OK, events: ['email.sent'] }).expect(201)).body
      .data;
    const res = await s.http
      .patch(`${BASE}/${created.id}`, {
        url: 'https://other.example.com/hook',
        description: 'CRM',
        events: ['contact.created', 'contact.deleted'],
        isActive: false,
        customHeaders: [{ key: 'Authorization', value: 'Bearer abc' }],
        timeoutSeconds: 10,
        maxRetries: 3,
      })
      .expect(200);
    expect(res.body.data).toMatchObject({
      url: 'https://other.example.com/hook',
      description: 'CRM',
      events: ['contact.created', 'contact.deleted'],
      isActive: false,
      customHeaders: [{ key: 'Authorization', value: 'Bearer abc' }],
      timeoutSeconds: 10,
      maxRetries: 3,
    });
    expect(res.body.data.secret).toBeUndefined();
    // Custom headers are encrypted at rest.
    const [row] = await ds.query(`SELECT custom_headers FROM webhook_endpoints WHERE id = $1`, [
      created.id,
    ]);
    expect(row.custom_headers).not.toContain('Bearer abc');
  });

  it('enforces the plan limit: free 3 endpoints, then 409 "Webhook endpoint limit reached"', async () => {
    const free = await createSession(app, { plan: 'free' });
    for (let i = 0; i < 3; i++)
      await create(free, { url: URL_OK, events: ['email.sent'] }).expect(201);
    const res = await create(free, { url: URL_OK, events: ['email.sent'] }).expect(409);
    expect(res.body).toEqual({
      success: false,
      message: 'Webhook endpoint limit reached',
      code: 'E_BUSINESS_RULE_VIOLATION',
    });
    // Concurrent creations cannot pass the limit either.
    const other = await createSession(app, { plan: 'free' });
    const results = await Promise.all(
      Array.from({ length: 6 }, () => create(other, { url: URL_OK, events: ['email.sent'] })),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(3);
    expect(results.filter((r) => r.status === 409)).toHaveLength(3);
  });

  it('deletes an endpoint with its history; then 404', async () => {
    const created = (await create(s, { url: URL_OK, events: ['email.sent'] }).expect(201)).body
      .data;
    await s.http.delete(`${BASE}/${created.id}`).expect(200);
    await s.http.get(`${BASE}/${created.id}`).expect(404);
    await s.http.delete(`${BASE}/${created.id}`).expect(404);
  });

  it("answers 404 for another organization's endpoint on every route", async () => {
    const created = (await create(s, { url: URL_OK, events: ['email.sent'] }).expect(201)).body
      .data;
    const other = await createSession(app);
    const id = created.id;
    await other.http.get(`${BASE}/${id}`).expect(404);
    await other.http.patch(`${BASE}/${id}`, { isActive: false }).expect(404);
    await other.http.delete(`${BASE}/${id}`).expect(404);
    await other.http.post(`${BASE}/${id}/regenerate-secret`).expect(404);
    await other.http.post(`${BASE}/${id}/test`).expect(404);
    const list = await other.http.get(BASE).expect(200);
    expect(list.body.data).toEqual([]);
    await s.http.get(`${BASE}/${NIL_UUID}`).expect(404);
    await s.http.get(`${BASE}/not-a-uuid`).expect(422);
  });

  it('requires webhooks:read to read and webhooks:write to change', async () => {
    const reader = await createSession(app, { scopes: ['webhooks:read'] });
    await reader.http.get(BASE).expect(200);
    await reader.http.get(`${BASE}/statistics`).expect(200);
    await reader.http.get('/api/v1/user/webhook-deliveries').expect(200);
    const denied = await create(reader, { url: URL_OK, events: ['email.sent'] }).expect(403);
    expect(denied.body.code).toBe('E_INSUFFICIENT_SCOPE');
    const writer = await createSession(app, { scopes: ['webhooks:write'] });
    await writer.http.get(BASE).expect(403);
    await create(writer, { url: URL_OK, events: ['email.sent'] }).expect(201);
  });

  describe('counters and statistics', () => {
    let st: Session;
    const ids: string[] = [];

    /** Seeds finished deliveries directly: statistics only read them. */
    async function seed(endpointId: string, delivered: number, failed: number, pending = 0) {
      await ds.query(
        `INSERT INTO webhook_deliveries (organization_id, webhook_endpoint_id, type, data, occurred_at, status, attempt_count)
         SELECT $1, $2, 'email.sent', $6, now(), s, 1
         FROM unnest(array_fill('delivered'::text, ARRAY[$3::int]) || array_fill('failed'::text, ARRAY[$4::int])
                     || array_fill('pending'::text, ARRAY[$5::int])) AS s`,
        [st.org.id, endpointId, delivered, failed, pending, fieldCipher().encrypt('{}')],
      );
    }

    beforeAll(async () => {
      st = await createSession(app, { plan: 'pro' });
      for (let i = 0; i < 5; i++) {
        ids.push(
          (await create(st, { url: URL_OK, events: ['email.sent'] }).expect(201)).body.data.id,
        );
      }
      await seed(ids[0], 2, 1); // 66.7 %, active → failing
      await seed(ids[1], 19, 1, 4); // 95.0 %, active → not failing (pending not counted)
      await seed(ids[2], 1, 2); // 33.3 %, inactive → not failing
      await st.http.patch(`${BASE}/${ids[2]}`, { isActive: false }).expect(200);
      await seed(ids[3], 0, 0, 2); // only pending: no history
      // ids[4]: no deliveries at all
    });

    it('lists each endpoint with totalDeliveries and successRate (0 without history)', async () => {
      const res = await st.http.get(`${BASE}?limit=100`).expect(200);
      const byId = new Map(res.body.data.map((e: { id: string }) => [e.id, e]));
      expect(byId.get(ids[0])).toMatchObject({ totalDeliveries: 3, successRate: 66.7 });
      expect(byId.get(ids[1])).toMatchObject({ totalDeliveries: 20, successRate: 95 });
      expect(byId.get(ids[2])).toMatchObject({ totalDeliveries: 3, successRate: 33.3 });
      expect(byId.get(ids[3])).toMatchObject({ totalDeliveries: 0, successRate: 0 });
      expect(byId.get(ids[4])).toMatchObject({
        totalDeliveries: 0,
        successRate: 0,
        lastTriggeredAt: null,
      });
      expect((byId.get(ids[0]) as { lastTriggeredAt: string }).lastTriggeredAt).toEqual(
        expect.any(String),
      );
      const one = await st.http.get(`${BASE}/${ids[0]}`).expect(200);
      expect(one.body.data).toMatchObject({ totalDeliveries: 3, successRate: 66.7 });
    });

    it('computes statistics exactly as the spec defines them', async () => {
      const res = await st.http.get(`${BASE}/statistics`).expect(200);
      // overall from rounded rates: (66.7×3 + 95×20 + 33.3×3) / 26 = 2200/26 = 84.615… → 84.6
      expect(res.body.data).toEqual({
        totalEndpoints: 5,
        activeEndpoints: 4,
        inactiveEndpoints: 1,
        failingEndpoints: 1,
        totalDeliveries: 26,
        overallSuccessRate: 84.6,
      });
    });

    it('reports zeros for an organization without endpoints', async () => {
      const empty = await createSession(app);
      const res = await empty.http.get(`${BASE}/statistics`).expect(200);
      expect(res.body.data).toEqual({
        totalEndpoints: 0,
        activeEndpoints: 0,
        inactiveEndpoints: 0,
        failingEndpoints: 0,
        totalDeliveries: 0,
        overallSuccessRate: 0,
      });
    });

    it('computes the list counters in a fixed number of queries, not one per endpoint', async () => {
      const spy = jest.spyOn(pg.Client.prototype, 'query');
      const count = async (session: Session) => {
        spy.mockClear();
        await session.http.get(`${BASE}?limit=100`).expect(200);
        return spy.mock.calls.filter((c) => /webhook_/.test(String(c[0]))).length;
      };
      try {
        const small = await createSession(app, { plan: 'pro' });
        await create(small, { url: URL_OK, events: ['email.sent'] }).expect(201);
        const withOne = await count(small);
        const withFive = await count(st);
        expect(withOne).toBeGreaterThan(0);
        expect(withFive).toBe(withOne);
      } finally {
        spy.mockRestore();
      }
    });
  });
});
