// The revenue report on DATABASE_READ_URL: the file's own database reached under another
// application_name stands for the replica, so pg_stat_activity shows which pool ran the report.
import { INestApplication } from '@nestjs/common';
import { createServer } from 'node:net';
import { DataSource } from 'typeorm';
import { ReadDatabase } from '@app/domain';
import { seedList, campaignBody } from '../campaigns/fixtures';
import { createTestApp } from '../support/app';
import { client, createSession, Session } from '../support/session';

const REPORT = '/api/v1/user/reports/revenue-attribution';
const WINDOW = '?from=2030-03-01&to=2030-03-31';
const READ_APP_NAME = 'mp-read-replica-test';

/** An api built with DATABASE_READ_URL set to `readUrl` (the configuration is read at build). */
async function appReadingFrom(readUrl: string): Promise<INestApplication> {
  process.env.DATABASE_READ_URL = readUrl;
  try {
    return await createTestApp();
  } finally {
    delete process.env.DATABASE_READ_URL;
  }
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as { port: number };
  await new Promise((ok) => server.close(ok));
  return port;
}

describe('Reports on a read replica (DATABASE_READ_URL)', () => {
  let primary: INestApplication;
  let replica: INestApplication;
  let s: Session;

  beforeAll(async () => {
    primary = await createTestApp();
    const readUrl = new URL(process.env.DATABASE_URL!);
    readUrl.searchParams.set('application_name', READ_APP_NAME);
    replica = await appReadingFrom(readUrl.toString());

    s = await createSession(primary);
    const other = await createSession(primary);
    for (const [session, revenue] of [
      [s, 120],
      [s, 30.5],
      [other, 9999],
    ] as const) {
      const list = await seedList(primary, session.org.id, { subscribed: 2 });
      const campaign = await session.http.post('/api/v1/user/campaigns', campaignBody(list.listId));
      await session.http
        .post('/api/v1/user/conversions', {
          campaignId: campaign.body.data.id,
          orderId: `o-${revenue}`,
          revenue,
          channel: 'email',
          occurredAt: '2030-03-10T12:00:00Z',
        })
        .expect(201);
    }
  });
  afterAll(async () => {
    await replica?.close();
    await primary?.close();
  });

  it('runs the report on the read connection, with the primary’s result and only the organization’s rows', async () => {
    const viaReplica = await client(replica, { 'X-API-Key': s.apiKey })
      .get(REPORT + WINDOW)
      .expect(200);

    // The last statement of a session stays in pg_stat_activity while it idles in the pool.
    const sessions: { query: string }[] = await primary
      .get(DataSource)
      .query(
        `SELECT query FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1`,
        [READ_APP_NAME],
      );
    expect(sessions.some((r) => r.query.includes('conversion_daily_stats'))).toBe(true);

    const viaPrimary = await s.http.get(REPORT + WINDOW).expect(200);
    expect(viaReplica.body).toEqual(viaPrimary.body);
    expect(viaReplica.body.data.overview).toMatchObject({
      totalRevenue: 150.5,
      totalConversions: 2,
    });
    expect(viaReplica.body.data.byChannel).toEqual([{ channel: 'email', revenue: 150.5 }]);
  });

  it('opens read-only sessions there, so a write fails loudly', async () => {
    const reads = await replica.get(ReadDatabase).connection();
    await expect(
      reads.query(`UPDATE organizations SET name = name WHERE id = $1`, [s.org.id]),
    ).rejects.toMatchObject({ code: '25006' });
  });

  it('reads the primary when DATABASE_READ_URL is unset', async () => {
    expect(await primary.get(ReadDatabase).connection()).toBe(primary.get(DataSource));
  });

  describe('with the replica unreachable', () => {
    let down: INestApplication;

    beforeAll(async () => {
      const readUrl = new URL(process.env.DATABASE_URL!);
      readUrl.hostname = '127.0.0.1';
      readUrl.port = String(await closedPort());
      down = await appReadingFrom(readUrl.toString());
    });
    afterAll(() => down?.close());

    it('answers the report 503 E_SERVICE_UNAVAILABLE with Retry-After, never from the primary', async () => {
      const http = client(down, { 'X-API-Key': s.apiKey });
      const res = await http.get(REPORT + WINDOW).expect(503);
      expect(res.headers['retry-after']).toBe('5');
      expect(res.body).toEqual({
        success: false,
        message: 'Service temporarily unavailable',
        code: 'E_SERVICE_UNAVAILABLE',
        retryAfter: 5,
      });
      // The rest of the api stays on the primary.
      await http.get('/api/v1/user/campaigns').expect(200);
    });
  });
});
