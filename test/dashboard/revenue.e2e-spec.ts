// Conversions recorded through the API; the revenue page's figures, trend and bars match the
// API's own report for the same window.
import { seedList } from '../campaigns/fixtures';
import {
  DashboardStack,
  navigate,
  seriousA11yViolations,
  signIn,
  startDashboardStack,
  textEventually,
} from './support/browser';

const money = (n: number) =>
  new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' }).format(n);

async function tableRows(stack: DashboardStack, testId: string): Promise<string[][]> {
  return stack.page
    .getByTestId(testId)
    .locator('tbody tr')
    .evaluateAll((trs) =>
      trs.map((tr) => Array.from(tr.querySelectorAll('td')).map((td) => td.textContent ?? '')),
    );
}

describe('dashboard revenue', () => {
  let stack: DashboardStack;

  beforeAll(async () => {
    stack = await startDashboardStack();
    const { s, app } = stack;
    const list = await seedList(app, s.org.id, { subscribed: 3 });
    const ids: string[] = [];
    for (const name of ['Spring sale', 'Welcome series']) {
      const res = await s.http
        .post('/api/v1/user/campaigns', {
          name,
          subject: name,
          from: 'Shop <news@shop.example.test>',
          text: 'Hello {{unsubscribe_url}}',
          listId: list.listId,
        })
        .expect(201);
      ids.push(res.body.data.id);
    }
    const day = (ago: number) => new Date(Date.now() - ago * 86_400_000).toISOString();
    const orders: [number, number, string, number][] = [
      [0, 120.5, 'email', 0],
      [0, 80, 'email', 2],
      [1, 45.25, 'sms', 5],
      [0, 300, 'email', 9],
      [1, 19.99, 'email', 20],
    ];
    for (const [i, [campaign, revenue, channel, ago]] of orders.entries()) {
      await s.http
        .post('/api/v1/user/conversions', {
          campaignId: ids[campaign],
          orderId: `order-${i}`,
          revenue,
          channel,
          occurredAt: day(ago),
        })
        .expect(201);
    }
    await signIn(stack);
  });
  afterAll(() => stack.close());

  it('shows the report’s figures, daily trend and bars for the default 30-day window', async () => {
    const { page, s } = stack;
    const report = (await s.http.get('/api/v1/user/reports/revenue-attribution').expect(200)).body
      .data;
    expect(report.overview.totalConversions).toBe(5);

    await navigate(page, 'Revenue');
    await textEventually(
      page.getByTestId('revenue-total'),
      (t) => t === money(report.overview.totalRevenue),
    );
    expect(await page.getByTestId('revenue-conversions').textContent()).toBe('5');
    expect(await page.getByTestId('revenue-aov').textContent()).toBe(
      money(report.overview.avgOrderValue),
    );
    expect(await page.getByTestId('revenue-per-email').textContent()).toBe(
      money(report.overview.revenuePerEmail),
    );
    expect(await page.getByTestId('trend-revenue').getAttribute('aria-label')).toBe(
      `revenue ${report.overview.trends.revenue.direction} ${report.overview.trends.revenue.value} % against the previous period`,
    );

    const trend = await tableRows(stack, 'revenue-trend-table');
    expect(trend).toHaveLength(report.trend.length);
    expect(trend.map((r) => r[1])).toEqual(
      report.trend.map((p: { revenue: number }) => money(p.revenue)),
    );
    const channels = await tableRows(stack, 'revenue-channel-table');
    expect(channels).toEqual(
      report.byChannel.map((c: { channel: string; revenue: number }) => [
        c.channel,
        money(c.revenue),
      ]),
    );
    const campaigns = await tableRows(stack, 'revenue-campaign-table');
    expect(campaigns.map((r) => [r[0], r[1]])).toEqual(
      report.topCampaigns.map((c: { name: string; revenue: number }) => [c.name, money(c.revenue)]),
    );
    // The line chart draws one point per day of the window.
    expect(await page.locator('.recharts-line-dots circle').count()).toBe(report.trend.length);
    expect(await seriousA11yViolations(page)).toEqual([]);
  });

  it('a 7-day window asks the API for those 7 days', async () => {
    const { page, s } = stack;
    await page.getByText('7 days', { exact: true }).click();
    await page.waitForURL(/days=7/);
    const today = new Date();
    const from = new Date(
      Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() - 6),
    );
    const report = (
      await s.http
        .get(
          `/api/v1/user/reports/revenue-attribution?from=${from.toISOString().slice(0, 10)}&to=${today.toISOString().slice(0, 10)}`,
        )
        .expect(200)
    ).body.data;
    await textEventually(
      page.getByTestId('revenue-total'),
      (t) => t === money(report.overview.totalRevenue),
    );
    expect(await tableRows(stack, 'revenue-trend-table')).toHaveLength(7);
    expect(await page.getByTestId('revenue-conversions').textContent()).toBe(
      String(report.overview.totalConversions),
    );
  });
});
