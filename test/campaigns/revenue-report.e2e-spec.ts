import { INestApplication } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Clock } from '@app/domain';
import { createTestApp } from '../support/app';
import { ManualClock } from '../support/clock';
import { client, createKey, createSession, Session } from '../support/session';
import { campaignBody, seedList } from './fixtures';

const REPORT = '/api/v1/user/reports/revenue-attribution';
const CAMPAIGNS = '/api/v1/user/campaigns';
const CONVERSIONS = '/api/v1/user/conversions';

/** Daily points from `first` to `last` (UTC days, inclusive), zero unless given. */
function days(first: string, last: string, values: Record<string, number> = {}) {
  const out: { date: string; revenue: number }[] = [];
  for (
    let d = new Date(`${first}T00:00:00Z`);
    d <= new Date(`${last}T00:00:00Z`);
    d = new Date(d.getTime() + 86_400_000)
  ) {
    const day = d.toISOString().slice(0, 10);
    out.push({ date: `${day}T00:00:00.000Z`, revenue: values[day] ?? 0 });
  }
  return out;
}

const up = (value: number) => ({ direction: 'up', value });
const down = (value: number) => ({ direction: 'down', value });
const neutral = { direction: 'neutral', value: 0 };

describe('Revenue attribution report (spec Revenue attribution report, §11)', () => {
  let app: INestApplication;
  // Today is 2030-03-15 (UTC): the default window is 2030-02-14 .. 2030-03-15, the previous one
  // 2030-01-15 .. 2030-02-13.
  const clock = new ManualClock(new Date('2030-03-15T12:00:00Z'));

  beforeAll(async () => {
    app = await createTestApp({ override: (b) => b.overrideProvider(Clock).useValue(clock) });
  });
  afterAll(() => app.close());

  /** A sent campaign whose list has `recipients` members. */
  async function sentCampaign(s: Session, name: string, recipients: number): Promise<string> {
    const list = await seedList(app, s.org.id, { subscribed: recipients });
    const id = (await s.http.post(CAMPAIGNS, campaignBody(list.listId, { name })).expect(201)).body
      .data.id;
    await s.http.post(`${CAMPAIGNS}/${id}/send`).expect(202);
    return id;
  }

  async function convert(
    s: Session,
    campaignId: string,
    revenue: number,
    channel: string,
    occurredAt: string,
  ) {
    await s.http
      .post(CONVERSIONS, {
        campaignId,
        orderId: `o-${Math.random().toString(36).slice(2)}`,
        revenue,
        channel,
        occurredAt,
      })
      .expect(201);
  }

  /** Rows where the daily rollup and an aggregate of the conversions themselves disagree. */
  async function rollupDrift(organizationId: string): Promise<number> {
    const [{ diff }]: { diff: number }[] = await app.get(DataSource).query(
      `WITH raw AS (
         SELECT (occurred_at AT TIME ZONE 'UTC')::date AS day, campaign_id, channel,
                sum(revenue) AS revenue, count(*) AS conversions
           FROM conversions WHERE organization_id = $1 GROUP BY 1, 2, 3),
       rollup AS (
         SELECT day, campaign_id, channel, revenue, conversions
           FROM conversion_daily_stats WHERE organization_id = $1)
       SELECT count(*)::int AS diff FROM (
         (SELECT * FROM raw EXCEPT SELECT * FROM rollup)
         UNION ALL
         (SELECT * FROM rollup EXCEPT SELECT * FROM raw)) x`,
      [organizationId],
    );
    return diff;
  }

  describe('an organization with no conversions', () => {
    it('gets zeros throughout, a zero-filled trend and empty arrays (not nulls)', async () => {
      const s = await createSession(app);
      // A campaign without conversions changes nothing.
      await sentCampaign(s, 'Quiet', 2);
      const res = await s.http.get(REPORT).expect(200);
      expect(res.body).toEqual({
        success: true,
        message: 'Revenue attribution report fetched successfully',
        data: {
          overview: {
            totalRevenue: 0,
            totalConversions: 0,
            avgOrderValue: 0,
            revenuePerEmail: 0,
            trends: { revenue: neutral, conversions: neutral },
          },
          trend: days('2030-02-14', '2030-03-15'),
          byChannel: [],
          topCampaigns: [],
        },
      });
    });
  });

  describe('seeded conversions across 3 campaigns, 2 channels and 40 days', () => {
    let s: Session;
    let other: Session;
    const ids: Record<'A' | 'B' | 'C', string> = { A: '', B: '', C: '' };

    beforeAll(async () => {
      s = await createSession(app);
      other = await createSession(app);
      ids.A = await sentCampaign(s, 'Alpha', 8);
      ids.B = await sentCampaign(s, 'Bravo', 12);
      ids.C = await sentCampaign(s, 'Charlie', 3);
      const { A, B, C } = ids;
      // Current default window (2030-02-14 .. 2030-03-15).
      await convert(s, A, 100, 'email', '2030-03-14T23:30:00-05:00'); // 2030-03-15 04:30 UTC
      await convert(s, A, 50, 'email', '2030-03-14T23:59:59Z');
      await convert(s, A, 25.5, 'email', '2030-03-01T00:00:00Z');
      await convert(s, A, 10, 'sms', '2030-02-14T00:00:00Z');
      await convert(s, B, 200, 'email', '2030-03-10T08:00:00Z');
      await convert(s, B, 100, 'email', '2030-03-10T20:00:00Z');
      await convert(s, B, 30, 'sms', '2030-02-20T12:00:00Z');
      await convert(s, C, 5.25, 'email', '2030-03-02T12:00:00Z');
      // Previous window (2030-01-15 .. 2030-02-13).
      await convert(s, A, 80, 'email', '2030-02-13T23:59:59Z');
      await convert(s, B, 400, 'email', '2030-02-10T09:00:00Z');
      await convert(s, A, 15, 'sms', '2030-02-05T10:00:00Z');
      await convert(s, B, 25, 'sms', '2030-02-06T10:00:00Z');
      // Just after the default window (tomorrow).
      await convert(s, A, 1000, 'email', '2030-03-16T00:00:00Z');
      // Another organization, same days: never counted.
      const foreign = await sentCampaign(other, 'Foreign', 1);
      await convert(other, foreign, 7777, 'email', '2030-03-10T10:00:00Z');
      await convert(other, foreign, 7777, 'sms', '2030-02-10T10:00:00Z');
    });

    const top = (
      key: 'A' | 'B' | 'C',
      revenue: number,
      conversions: number,
      avgOrderValue: number,
      conversionRate: number,
    ) => ({
      campaignId: ids[key],
      name: { A: 'Alpha', B: 'Bravo', C: 'Charlie' }[key],
      revenue,
      conversions,
      avgOrderValue,
      conversionRate,
    });

    const cases: [string, () => string, () => object][] = [
      [
        'default window (last 30 UTC days): revenue up slightly, conversions doubled',
        () => '',
        () => ({
          overview: {
            totalRevenue: 520.75,
            totalConversions: 8,
            avgOrderValue: 65.09, // 65.09375
            revenuePerEmail: 0,
            trends: { revenue: up(0.1), conversions: up(100) }, // 520 → 520.75; 4 → 8
          },
          trend: days('2030-02-14', '2030-03-15', {
            '2030-02-14': 10,
            '2030-02-20': 30,
            '2030-03-01': 25.5,
            '2030-03-02': 5.25,
            '2030-03-10': 300,
            '2030-03-14': 50,
            '2030-03-15': 100,
          }),
          byChannel: [
            { channel: 'email', revenue: 480.75 },
            { channel: 'sms', revenue: 40 },
          ],
          topCampaigns: [
            top('B', 330, 3, 110, 25), // 3 / 12
            top('A', 185.5, 4, 46.38, 50), // 46.375 rounds half up; 4 / 8
            top('C', 5.25, 1, 5.25, 33.33), // 1 / 3
          ],
        }),
      ],
      [
        'channel=email: half-up rounding of the average and the trend',
        () => '?channel=email',
        () => ({
          overview: {
            totalRevenue: 480.75,
            totalConversions: 6,
            avgOrderValue: 80.13, // 80.125
            revenuePerEmail: 0,
            trends: { revenue: up(0.2), conversions: up(200) }, // 0.15625 %; 2 → 6
          },
          trend: days('2030-02-14', '2030-03-15', {
            '2030-03-01': 25.5,
            '2030-03-02': 5.25,
            '2030-03-10': 300,
            '2030-03-14': 50,
            '2030-03-15': 100,
          }),
          byChannel: [{ channel: 'email', revenue: 480.75 }],
          topCampaigns: [
            top('B', 300, 2, 150, 16.67),
            top('A', 175.5, 3, 58.5, 37.5),
            top('C', 5.25, 1, 5.25, 33.33),
          ],
        }),
      ],
      [
        'channel=sms: equal to the previous window → neutral 0',
        () => '?channel=sms',
        () => ({
          overview: {
            totalRevenue: 40,
            totalConversions: 2,
            avgOrderValue: 20,
            revenuePerEmail: 0,
            trends: { revenue: neutral, conversions: neutral },
          },
          trend: days('2030-02-14', '2030-03-15', { '2030-02-14': 10, '2030-02-20': 30 }),
          byChannel: [{ channel: 'sms', revenue: 40 }],
          topCampaigns: [top('B', 30, 1, 30, 8.33), top('A', 10, 1, 10, 12.5)],
        }),
      ],
      [
        'campaignId=B: revenue down, conversions up',
        () => `?campaignId=${ids.B}`,
        () => ({
          overview: {
            totalRevenue: 330,
            totalConversions: 3,
            avgOrderValue: 110,
            revenuePerEmail: 0,
            trends: { revenue: down(22.4), conversions: up(50) }, // 425 → 330; 2 → 3
          },
          trend: days('2030-02-14', '2030-03-15', { '2030-02-20': 30, '2030-03-10': 300 }),
          byChannel: [
            { channel: 'email', revenue: 300 },
            { channel: 'sms', revenue: 30 },
          ],
          topCampaigns: [top('B', 330, 3, 110, 25)],
        }),
      ],
      [
        'campaignId=C: nothing in the previous window → up 100',
        () => `?campaignId=${ids.C}`,
        () => ({
          overview: {
            totalRevenue: 5.25,
            totalConversions: 1,
            avgOrderValue: 5.25,
            revenuePerEmail: 0,
            trends: { revenue: up(100), conversions: up(100) },
          },
          trend: days('2030-02-14', '2030-03-15', { '2030-03-02': 5.25 }),
          byChannel: [{ channel: 'email', revenue: 5.25 }],
          topCampaigns: [top('C', 5.25, 1, 5.25, 33.33)],
        }),
      ],
      [
        'channel=whatsapp: nothing in either window → zeros, neutral, empty arrays',
        () => '?channel=whatsapp',
        () => ({
          overview: {
            totalRevenue: 0,
            totalConversions: 0,
            avgOrderValue: 0,
            revenuePerEmail: 0,
            trends: { revenue: neutral, conversions: neutral },
          },
          trend: days('2030-02-14', '2030-03-15'),
          byChannel: [],
          topCampaigns: [],
        }),
      ],
      [
        'from=2030-03-10&to=2030-03-15: date-only bounds cover whole UTC days, zero-filled',
        () => '?from=2030-03-10&to=2030-03-15',
        () => ({
          overview: {
            totalRevenue: 450,
            totalConversions: 4,
            avgOrderValue: 112.5,
            revenuePerEmail: 0,
            trends: { revenue: up(100), conversions: up(100) }, // 2030-03-04 .. 09 is empty
          },
          trend: days('2030-03-10', '2030-03-15', {
            '2030-03-10': 300,
            '2030-03-14': 50,
            '2030-03-15': 100,
          }),
          byChannel: [{ channel: 'email', revenue: 450 }],
          topCampaigns: [top('B', 300, 2, 150, 16.67), top('A', 150, 2, 75, 25)],
        }),
      ],
      [
        'date-time bounds: from inclusive, to exclusive',
        () => '?from=2030-03-14T23:59:59Z&to=2030-03-15T04:30:00Z',
        () => ({
          overview: {
            totalRevenue: 50,
            totalConversions: 1,
            avgOrderValue: 50,
            revenuePerEmail: 0,
            trends: { revenue: up(100), conversions: up(100) },
          },
          trend: days('2030-03-14', '2030-03-15', { '2030-03-14': 50 }),
          byChannel: [{ channel: 'email', revenue: 50 }],
          topCampaigns: [top('A', 50, 1, 50, 12.5)],
        }),
      ],
      [
        'partial first and last days: edges from the conversions, whole days from the rollup',
        () => '?from=2030-03-10T12:00:00Z&to=2030-03-14T23:59:59.500Z',
        () => ({
          overview: {
            totalRevenue: 150, // B's 20:00 conversion, not its 08:00 one; A's 23:59:59
            totalConversions: 2,
            avgOrderValue: 75,
            revenuePerEmail: 0,
            // Previous window 2030-03-06T00:00:00.5Z .. 2030-03-10T12:00Z holds B's 200.
            trends: { revenue: down(25), conversions: up(100) },
          },
          trend: days('2030-03-10', '2030-03-14', { '2030-03-10': 100, '2030-03-14': 50 }),
          byChannel: [{ channel: 'email', revenue: 150 }],
          topCampaigns: [top('B', 100, 1, 100, 8.33), top('A', 50, 1, 50, 12.5)],
        }),
      ],
      [
        'from only: 30 days from it, which includes tomorrow’s conversion',
        () => '?from=2030-02-15',
        () => ({
          overview: {
            totalRevenue: 1510.75, // without 2030-02-14's 10, with 2030-03-16's 1000
            totalConversions: 8,
            avgOrderValue: 188.84, // 188.84375
            revenuePerEmail: 0,
            // Previous window 2030-01-16 .. 2030-02-14: 530 over 5 conversions.
            trends: { revenue: up(185), conversions: up(60) }, // 185.047 %; 5 → 8
          },
          trend: days('2030-02-15', '2030-03-16', {
            '2030-02-20': 30,
            '2030-03-01': 25.5,
            '2030-03-02': 5.25,
            '2030-03-10': 300,
            '2030-03-14': 50,
            '2030-03-15': 100,
            '2030-03-16': 1000,
          }),
          byChannel: [
            { channel: 'email', revenue: 1480.75 },
            { channel: 'sms', revenue: 30 },
          ],
          topCampaigns: [
            top('A', 1175.5, 4, 293.88, 50),
            top('B', 330, 3, 110, 25),
            top('C', 5.25, 1, 5.25, 33.33),
          ],
        }),
      ],
    ];

    it.each(cases)('%s', async (_, query, expected) => {
      const res = await s.http.get(`${REPORT}${query()}`).expect(200);
      expect(res.body.data).toEqual(expected());
    });

    it('the daily rollup equals an aggregate of the conversions', async () => {
      expect(await rollupDrift(s.org.id)).toBe(0);
      expect(await rollupDrift(other.org.id)).toBe(0);
    });

    it('another organization sees none of it, even when naming the campaign', async () => {
      const res = await other.http.get(`${REPORT}?campaignId=${ids.A}`).expect(200);
      expect(res.body.data.overview).toMatchObject({ totalRevenue: 0, totalConversions: 0 });
      expect(res.body.data.topCampaigns).toEqual([]);
      const own = await other.http.get(REPORT).expect(200);
      expect(own.body.data.overview).toMatchObject({ totalRevenue: 7777, totalConversions: 1 });
      expect(own.body.data.topCampaigns.map((c: { name: string }) => c.name)).toEqual(['Foreign']);
    });
  });

  it('deleting a draft with conversions takes them out of the report; the rollup stays exact', async () => {
    const s = await createSession(app);
    const kept = await sentCampaign(s, 'Kept', 2);
    const list = await seedList(app, s.org.id, { subscribed: 1 });
    const draft = (await s.http.post(CAMPAIGNS, campaignBody(list.listId)).expect(201)).body.data
      .id;
    await convert(s, kept, 12.5, 'email', '2030-03-12T10:00:00Z');
    await convert(s, draft, 999, 'email', '2030-03-12T11:00:00Z');
    await convert(s, draft, 1, 'sms', '2030-03-13T11:00:00Z');
    let res = await s.http.get(REPORT).expect(200);
    expect(res.body.data.overview).toMatchObject({ totalRevenue: 1012.5, totalConversions: 3 });
    await s.http.delete(`${CAMPAIGNS}/${draft}`).expect(200);
    res = await s.http.get(REPORT).expect(200);
    expect(res.body.data.overview).toMatchObject({ totalRevenue: 12.5, totalConversions: 1 });
    expect(res.body.data.byChannel).toEqual([{ channel: 'email', revenue: 12.5 }]);

    expect(await rollupDrift(s.org.id)).toBe(0);
    const ds = app.get(DataSource);
    const [{ n }] = await ds.query(
      `SELECT count(*)::int AS n FROM conversion_daily_stats WHERE organization_id = $1`,
      [s.org.id],
    );
    expect(n).toBe(1);
  });

  it('topCampaigns keeps the 10 best by revenue', async () => {
    const s = await createSession(app);
    const names: string[] = [];
    for (let i = 1; i <= 12; i++) {
      const id = await sentCampaign(s, `N${String(i).padStart(2, '0')}`, 1);
      await convert(s, id, i * 10, 'email', '2030-03-05T10:00:00Z');
      names.push(`N${String(i).padStart(2, '0')}`);
    }
    const res = await s.http.get(REPORT).expect(200);
    expect(res.body.data.topCampaigns.map((c: { name: string }) => c.name)).toEqual(
      names.reverse().slice(0, 10),
    );
    expect(res.body.data.overview.totalConversions).toBe(12);
  });

  describe('revenuePerEmail = revenue / campaign emails delivered in the window', () => {
    /** A message of the log with one attempt, as the send path and the delivery worker write them. */
    async function attempt(
      organizationId: string,
      campaignId: string | null,
      status: string,
      attemptedAt: string,
    ): Promise<void> {
      const ds = app.get(DataSource);
      const [m]: { id: string }[] = await ds.query(
        `INSERT INTO messages (organization_id, job_id, message_id, source, sender_address,
                               campaign_id, content, recipient_count, status, created_at)
         VALUES ($1, 'job_' || gen_random_uuid(), '<x@shop.example>', $2, 'news@shop.example', $3,
                 'x', 1, $4, $5)
         RETURNING id`,
        [organizationId, campaignId ? 'campaign' : 'api', campaignId, status, attemptedAt],
      );
      await ds.query(
        `INSERT INTO message_attempts (message_id, organization_id, recipient_idx, status, retry_count, attempted_at)
         VALUES ($1, $2, 0, $3, 0, $4)`,
        [m.id, organizationId, status, attemptedAt],
      );
    }

    it.each([
      // [query, expected revenuePerEmail]
      ['', 33.33], // 100.00 / 3 delivered campaign emails of A and B in the default window
      ['campaignId=A', 40], // 80.00 / 2 of A
      ['campaignId=B', 20], // 20.00 / 1 of B
      ['from=2030-01-01&to=2030-01-31', 0], // no conversions, one delivered email: 0 / 1
      ['from=2030-03-15T00:00:00Z&to=2030-03-15T12:00:00Z', 0], // conversions but nothing delivered
    ])('%s → %s', async (query, expected) => {
      const s = await createSession(app);
      const other = await createSession(app);
      const a = await sentCampaign(s, 'A', 2);
      const b = await sentCampaign(s, 'B', 1);
      const theirs = await sentCampaign(other, 'Theirs', 1);
      await convert(s, a, 80, 'email', '2030-03-01T10:00:00Z');
      await convert(s, b, 20, 'email', '2030-03-02T10:00:00Z');
      // Counted: delivered attempts of campaign messages inside the window.
      await attempt(s.org.id, a, 'delivered', '2030-02-20T08:00:00Z');
      await attempt(s.org.id, a, 'delivered', '2030-03-10T08:00:00Z');
      await attempt(s.org.id, b, 'delivered', '2030-03-11T08:00:00Z');
      // Not counted: before the default window, not delivered, not a campaign's, not ours.
      await attempt(s.org.id, a, 'delivered', '2030-01-20T08:00:00Z');
      await attempt(s.org.id, a, 'bounced', '2030-03-10T09:00:00Z');
      await attempt(s.org.id, a, 'deferred', '2030-03-10T09:00:00Z');
      await attempt(s.org.id, null, 'delivered', '2030-03-10T09:00:00Z');
      await attempt(other.org.id, theirs, 'delivered', '2030-03-10T09:00:00Z');
      const q = query.replace('=A', `=${a}`).replace('=B', `=${b}`);
      const res = await s.http.get(`${REPORT}${q ? `?${q}` : ''}`).expect(200);
      expect(res.body.data.overview.revenuePerEmail).toBe(expected);
    });
  });

  it.each([
    ['from=yesterday', 'from', 'type'],
    ['to=2030-13-01', 'to', 'type'],
    ['from=2030-03-10&to=2030-03-01', 'to', 'min'],
    ['from=2029-01-01&to=2030-03-01', 'to', 'max'],
    ['channel=fax', 'channel', 'enum'],
    ['campaignId=abc', 'campaignId', 'uuid'],
    ['limit=5', 'limit', 'unknown'],
  ])('refuses %s with 422', async (query, field, rule) => {
    const s = await createSession(app);
    const res = await s.http.get(`${REPORT}?${query}`).expect(422);
    expect(res.body.code).toBe('E_VALIDATION_ERROR');
    expect(res.body.errors).toEqual([expect.objectContaining({ field, rule })]);
  });

  it('needs analytics:read', async () => {
    const s = await createSession(app);
    const { value } = await createKey(app, s.org.id, { scopes: ['analytics:write'] });
    const res = await client(app, { 'X-API-Key': value }).get(REPORT).expect(403);
    expect(res.body.code).toBe('E_INSUFFICIENT_SCOPE');
  });
});
