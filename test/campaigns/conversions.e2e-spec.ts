import { INestApplication } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Clock } from '@app/domain';
import { createTestApp } from '../support/app';
import { ManualClock } from '../support/clock';
import { client, createKey, createSession, NIL_UUID, Session } from '../support/session';
import { campaignBody, seedList } from './fixtures';

const BASE = '/api/v1/user/conversions';

describe('Conversions API (§11)', () => {
  let app: INestApplication;
  let s: Session;
  let other: Session;
  let campaignId: string;
  let contactId: string;
  const clock = new ManualClock(new Date('2030-03-15T12:00:00Z'));

  beforeAll(async () => {
    app = await createTestApp({ override: (b) => b.overrideProvider(Clock).useValue(clock) });
    s = await createSession(app);
    other = await createSession(app);
    const list = await seedList(app, s.org.id, { subscribed: 2 });
    contactId = list.contactIds[0];
    campaignId = (
      await s.http.post('/api/v1/user/campaigns', campaignBody(list.listId)).expect(201)
    ).body.data.id;
  });
  afterAll(() => app.close());

  const stored = async (orderId: string) =>
    (await app
      .get(DataSource)
      .query(
        `SELECT count(*)::int AS n FROM conversions WHERE organization_id = $1 AND order_id = $2`,
        [s.org.id, orderId],
      )) as { n: number }[];

  it('records a conversion: 201 with defaults (USD, the campaign’s channel, now)', async () => {
    const res = await s.http
      .post(BASE, { campaignId, contactId, orderId: 'ord-1', revenue: 19.99 })
      .expect(201);
    expect(res.body).toMatchObject({ success: true, message: 'Conversion recorded successfully' });
    expect(res.body.data).toEqual({
      id: expect.any(String),
      organizationId: s.org.id,
      campaignId,
      contactId,
      orderId: 'ord-1',
      revenue: 19.99,
      currency: 'USD',
      channel: 'email',
      occurredAt: '2030-03-15T12:00:00.000Z',
      createdAt: expect.any(String),
    });
  });

  it('the same orderId twice stores one conversion; the repeat returns the first, 200', async () => {
    const first = await s.http
      .post(BASE, {
        campaignId,
        orderId: 'ord-dup',
        revenue: 50,
        currency: 'eur',
        channel: 'sms',
        occurredAt: '2030-03-01T10:00:00Z',
      })
      .expect(201);
    const second = await s.http
      .post(BASE, { campaignId, orderId: 'ord-dup', revenue: 999, channel: 'email' })
      .expect(200);
    expect(second.body.data).toEqual(first.body.data);
    expect(second.body.data).toMatchObject({ revenue: 50, currency: 'EUR', channel: 'sms' });
    expect(await stored('ord-dup')).toEqual([{ n: 1 }]);
  });

  it('concurrent posts of one orderId store exactly one conversion', async () => {
    const results = await Promise.all(
      Array.from({ length: 6 }, () =>
        s.http.post(BASE, { campaignId, orderId: 'ord-race', revenue: 10 }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 201]);
    expect(new Set(results.map((r) => r.body.data.id)).size).toBe(1);
    expect(await stored('ord-race')).toEqual([{ n: 1 }]);
  });

  it('an orderId is per organization: another organization records its own', async () => {
    const list = await seedList(app, other.org.id, { subscribed: 1 });
    const otherCampaign = (
      await other.http.post('/api/v1/user/campaigns', campaignBody(list.listId)).expect(201)
    ).body.data.id;
    await s.http.post(BASE, { campaignId, orderId: 'ord-shared', revenue: 1 }).expect(201);
    await other.http
      .post(BASE, { campaignId: otherCampaign, orderId: 'ord-shared', revenue: 2 })
      .expect(201);
  });

  it('a campaign or contact of another organization is a 404, and nothing is stored', async () => {
    const foreign = await other.http
      .post(BASE, { campaignId, orderId: 'ord-foreign', revenue: 5 })
      .expect(404);
    expect(foreign.body).toEqual({
      success: false,
      message: 'Campaign not found',
      code: 'E_ROW_NOT_FOUND',
    });
    await s.http.post(BASE, { campaignId: NIL_UUID, orderId: 'ord-x', revenue: 5 }).expect(404);
    const list = await seedList(app, other.org.id, { subscribed: 1 });
    const res = await s.http
      .post(BASE, { campaignId, contactId: list.contactIds[0], orderId: 'ord-y', revenue: 5 })
      .expect(404);
    expect(res.body.message).toBe('Contact not found');
    const [{ n }] = await app
      .get(DataSource)
      .query(
        `SELECT count(*)::int AS n FROM conversions WHERE order_id IN ('ord-foreign','ord-x','ord-y')`,
      );
    expect(n).toBe(0);
  });

  it.each([
    ['a negative revenue', { revenue: -1 }, 'revenue', 'min'],
    ['more than 2 decimals', { revenue: 1.234 }, 'revenue', 'type'],
    // Numbers JavaScript prints in exponent form made class-validator's decimal check throw (500).
    ['a revenue of 1e-7', { revenue: 1e-7 }, 'revenue', 'type'],
    ['the smallest double', { revenue: 5e-324 }, 'revenue', 'type'],
    ['revenue as a string', { revenue: '10' }, 'revenue', 'type'],
    ['a missing revenue', { revenue: undefined }, 'revenue', 'required'],
    ['a missing orderId', { orderId: undefined }, 'orderId', 'required'],
    ['a missing campaignId', { campaignId: undefined }, 'campaignId', 'required'],
    ['a non-uuid contactId', { contactId: 'x' }, 'contactId', 'uuid'],
    ['a bad currency', { currency: 'US' }, 'currency', 'enum'],
    ['an unknown channel', { channel: 'fax' }, 'channel', 'enum'],
    ['a bad occurredAt', { occurredAt: 'yesterday' }, 'occurredAt', 'type'],
    ['an unknown field', { coupon: 'X' }, 'coupon', 'unknown'],
  ])('refuses %s with 422', async (_, patch, field, rule) => {
    const res = await s.http
      .post(BASE, { campaignId, orderId: 'ord-invalid', revenue: 10, ...patch })
      .expect(422);
    expect(res.body.code).toBe('E_VALIDATION_ERROR');
    expect(res.body.errors).toEqual(
      expect.arrayContaining([expect.objectContaining({ field, rule })]),
    );
    expect(res.body.errors.every((e: { field: string }) => e.field === field)).toBe(true);
  });

  it('accepts two decimals and large amounts', async () => {
    for (const [orderId, revenue] of [
      ['ord-cents', 19.99],
      ['ord-large', 123456789.01],
    ] as const) {
      const res = await s.http.post(BASE, { campaignId, orderId, revenue }).expect(201);
      expect(res.body.data.revenue).toBe(revenue);
    }
  });

  it('accepts a revenue of 0', async () => {
    const res = await s.http
      .post(BASE, { campaignId, orderId: 'ord-zero', revenue: 0 })
      .expect(201);
    expect(res.body.data.revenue).toBe(0);
  });

  it('needs analytics:write', async () => {
    const { value } = await createKey(app, s.org.id, { scopes: ['analytics:read'] });
    const res = await client(app, { 'X-API-Key': value })
      .post(BASE, { campaignId, orderId: 'ord-scope', revenue: 1 })
      .expect(403);
    expect(res.body.code).toBe('E_INSUFFICIENT_SCOPE');
  });
});
