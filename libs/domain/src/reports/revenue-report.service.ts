// The revenue attribution report (§11): resolves the window, returns the document.
import { Injectable } from '@nestjs/common';
import { Clock } from '../common/clock';
import type { OrgId } from '../common/org-id';
import { ValidationFailedError } from '../errors/domain-errors';
import { RevenueReportRepository, RevenueReportWindow } from './revenue-report.repository';

const DAY_MS = 86_400_000;
export const DEFAULT_WINDOW_DAYS = 30;
export const MAX_WINDOW_DAYS = 366;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

export interface RevenueReportQuery {
  /** `YYYY-MM-DD` (start of that UTC day) or an ISO 8601 date-time; inclusive. */
  from?: string;
  /** `YYYY-MM-DD` (through the end of that UTC day) or an ISO 8601 date-time; exclusive. */
  to?: string;
  channel?: string;
  campaignId?: string;
}

export interface Trend {
  direction: 'up' | 'down' | 'neutral';
  value: number;
}

export interface RevenueReport {
  overview: {
    totalRevenue: number;
    totalConversions: number;
    avgOrderValue: number;
    revenuePerEmail: number;
    trends: { revenue: Trend; conversions: Trend };
  };
  trend: { date: string; revenue: number }[];
  byChannel: { channel: string; revenue: number }[];
  topCampaigns: {
    campaignId: string;
    name: string;
    revenue: number;
    conversions: number;
    avgOrderValue: number;
    conversionRate: number;
  }[];
}

function utcDay(d: Date): string {
  return d.toISOString().slice(0, 10);
}

function startOfUtcDay(d: Date): Date {
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
}

@Injectable()
export class RevenueReportService {
  constructor(
    private readonly reports: RevenueReportRepository,
    private readonly clock: Clock,
  ) {}

  /**
   * The window: `from` inclusive, `to` exclusive. A date-only `to` covers that whole UTC day.
   * Without both, the last 30 UTC days including today; with one, 30 days from or to it.
   */
  resolveWindow(organizationId: OrgId, q: RevenueReportQuery): RevenueReportWindow {
    const parse = (field: 'from' | 'to', v: string): Date => {
      const d = new Date(DATE_ONLY.test(v) ? `${v}T00:00:00.000Z` : v);
      if (Number.isNaN(d.getTime())) {
        throw ValidationFailedError.field(field, 'type', `${field} must be an ISO 8601 date`);
      }
      return field === 'to' && DATE_ONLY.test(v) ? new Date(d.getTime() + DAY_MS) : d;
    };
    const span = DEFAULT_WINDOW_DAYS * DAY_MS;
    let from = q.from !== undefined ? parse('from', q.from) : undefined;
    let to = q.to !== undefined ? parse('to', q.to) : undefined;
    if (!to) to = from ? new Date(from.getTime() + span) : startOfUtcDay(this.clock.now());
    if (!from) {
      if (q.to === undefined) to = new Date(to.getTime() + DAY_MS); // default: through today
      from = new Date(to.getTime() - span);
    }
    if (to.getTime() <= from.getTime()) {
      throw ValidationFailedError.field('to', 'min', 'to must be after from');
    }
    if (to.getTime() - from.getTime() > MAX_WINDOW_DAYS * DAY_MS) {
      throw ValidationFailedError.field(
        'to',
        'max',
        `The window may span at most ${MAX_WINDOW_DAYS} days`,
      );
    }
    return {
      organizationId,
      from,
      to,
      previousFrom: new Date(from.getTime() - (to.getTime() - from.getTime())),
      firstDay: utcDay(from),
      lastDay: utcDay(new Date(to.getTime() - 1)),
      channel: q.channel,
      campaignId: q.campaignId,
    };
  }

  async report(organizationId: OrgId, q: RevenueReportQuery): Promise<RevenueReport> {
    return this.reports.report<RevenueReport>(
      organizationId,
      this.resolveWindow(organizationId, q),
    );
  }
}
