// The revenue report's window (§11) with a fixed clock and a fake repository: the defaults, a
// date-only bound covering its whole UTC day, the previous window, and the 422s of a bad window.
import type { Clock } from '../common/clock';
import { asOrgId } from '../common/org-id';
import type { RevenueReportRepository } from './revenue-report.repository';
import {
  MAX_WINDOW_DAYS,
  RevenueReportQuery,
  RevenueReportService,
} from './revenue-report.service';

const ORG = asOrgId('00000000-0000-4000-8000-000000000001');
const NOW = new Date('2030-06-15T13:45:00Z');
const DAY_MS = 86_400_000;
const at = (iso: string) => new Date(iso);

function setup() {
  const reports = { report: jest.fn(async (_org: string, _window: unknown) => ({ trend: [] })) };
  const clock: Clock = { now: () => NOW };
  const service = new RevenueReportService(reports as unknown as RevenueReportRepository, clock);
  return { service, reports };
}

function refusal(q: RevenueReportQuery) {
  try {
    setup().service.resolveWindow(ORG, q);
  } catch (err) {
    return err as { code: string; errors: { field: string; rule: string }[] };
  }
  throw new Error('the window was accepted');
}

describe('RevenueReportService.resolveWindow', () => {
  it('defaults to the last 30 UTC days including today', () => {
    const w = setup().service.resolveWindow(ORG, {});
    expect(w).toMatchObject({
      from: at('2030-05-17T00:00:00Z'),
      to: at('2030-06-16T00:00:00Z'),
      previousFrom: at('2030-04-17T00:00:00Z'),
      firstDay: '2030-05-17',
      lastDay: '2030-06-15',
    });
  });

  it('takes 30 days from a lone from, and 30 days up to a lone to', () => {
    const { service } = setup();
    expect(service.resolveWindow(ORG, { from: '2030-01-01' })).toMatchObject({
      from: at('2030-01-01T00:00:00Z'),
      to: at('2030-01-31T00:00:00Z'),
      lastDay: '2030-01-30',
    });
    // A date-only `to` covers that whole day.
    expect(service.resolveWindow(ORG, { to: '2030-03-10' })).toMatchObject({
      from: at('2030-02-09T00:00:00Z'),
      to: at('2030-03-11T00:00:00Z'),
      firstDay: '2030-02-09',
      lastDay: '2030-03-10',
    });
  });

  it('takes date-times as given, and the previous window is as long as this one', () => {
    const w = setup().service.resolveWindow(ORG, {
      from: '2030-02-01T06:00:00Z',
      to: '2030-02-03T18:00:00Z',
      channel: 'email',
      campaignId: 'c1',
    });
    expect(w).toMatchObject({
      from: at('2030-02-01T06:00:00Z'),
      to: at('2030-02-03T18:00:00Z'),
      previousFrom: at('2030-01-29T18:00:00Z'),
      firstDay: '2030-02-01',
      lastDay: '2030-02-03',
      channel: 'email',
      campaignId: 'c1',
    });
  });

  it('refuses a bound that is not a date with a 422 naming it', () => {
    expect(refusal({ from: 'yesterday' })).toMatchObject({
      code: 'E_VALIDATION_ERROR',
      errors: [expect.objectContaining({ field: 'from', rule: 'type' })],
    });
    expect(refusal({ to: '2030-13-45' })).toMatchObject({
      errors: [expect.objectContaining({ field: 'to', rule: 'type' })],
    });
  });

  it('refuses a window that ends before it starts', () => {
    expect(refusal({ from: '2030-02-01T00:00:00Z', to: '2030-02-01T00:00:00Z' })).toMatchObject({
      errors: [expect.objectContaining({ field: 'to', rule: 'min' })],
    });
    // A date-only `to` of the same day is a one-day window.
    expect(
      setup().service.resolveWindow(ORG, { from: '2030-02-01', to: '2030-02-01' }),
    ).toMatchObject({ firstDay: '2030-02-01', lastDay: '2030-02-01' });
  });

  it(`allows ${MAX_WINDOW_DAYS} days at most`, () => {
    const from = at('2030-01-01T00:00:00Z');
    const longest = new Date(from.getTime() + MAX_WINDOW_DAYS * DAY_MS).toISOString();
    expect(
      setup().service.resolveWindow(ORG, { from: from.toISOString(), to: longest }),
    ).toMatchObject({ to: at(longest) });
    const over = new Date(from.getTime() + MAX_WINDOW_DAYS * DAY_MS + 1).toISOString();
    expect(refusal({ from: from.toISOString(), to: over })).toMatchObject({
      errors: [expect.objectContaining({ field: 'to', rule: 'max' })],
    });
  });
});

describe('RevenueReportService.report', () => {
  it("reads the organization's report over the resolved window", async () => {
    const { service, reports } = setup();
    await expect(service.report(ORG, { from: '2030-01-01', channel: 'sms' })).resolves.toEqual({
      trend: [],
    });
    expect(reports.report).toHaveBeenCalledWith(
      ORG,
      expect.objectContaining({
        from: at('2030-01-01T00:00:00Z'),
        to: at('2030-01-31T00:00:00Z'),
        channel: 'sms',
      }),
    );
  });

  it('reads nothing for a bad window', async () => {
    const { service, reports } = setup();
    await expect(service.report(ORG, { from: 'soon' })).rejects.toMatchObject({
      code: 'E_VALIDATION_ERROR',
    });
    expect(reports.report).not.toHaveBeenCalled();
  });
});
