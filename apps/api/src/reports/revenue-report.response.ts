// Response shape of GET /reports/revenue-attribution (§11). Money is rounded to 2 decimals,
// percentages to 1 (a campaign's conversionRate to 2).
import { ApiProperty } from '@nestjs/swagger';
import { CHANNELS } from '@app/domain';
import type { RevenueReport } from '@app/domain';

/** The change against the window of the same length just before. */
export class RevenueTrendResponse {
  @ApiProperty({ enum: ['up', 'down', 'neutral'] })
  direction: 'up' | 'down' | 'neutral';

  /** The change in percent of the previous window (100 when that had none). */
  value: number;
}

export class RevenueTrendsResponse {
  revenue: RevenueTrendResponse;

  conversions: RevenueTrendResponse;
}

export class RevenueOverviewResponse {
  totalRevenue: number;

  totalConversions: number;

  avgOrderValue: number;

  /** Revenue per delivered campaign email. */
  revenuePerEmail: number;

  trends: RevenueTrendsResponse;
}

/** One UTC day of the window. */
export class RevenueDayResponse {
  /** Midnight UTC of the day (`YYYY-MM-DDT00:00:00.000Z`). */
  @ApiProperty({ format: 'date-time' })
  date: string;

  revenue: number;
}

export class ChannelRevenueResponse {
  @ApiProperty({ enum: CHANNELS })
  channel: string;

  revenue: number;
}

export class CampaignRevenueResponse {
  @ApiProperty({ format: 'uuid' })
  campaignId: string;

  name: string;

  revenue: number;

  conversions: number;

  avgOrderValue: number;

  /** Conversions in percent of the campaign's recipients. */
  conversionRate: number;
}

export class RevenueReportResponse {
  overview: RevenueOverviewResponse;

  /** Every day of the window, oldest first. */
  @ApiProperty({ type: [RevenueDayResponse] })
  trend: RevenueDayResponse[];

  /** Highest revenue first. */
  @ApiProperty({ type: [ChannelRevenueResponse] })
  byChannel: ChannelRevenueResponse[];

  /** The 10 campaigns of highest revenue. */
  @ApiProperty({ type: [CampaignRevenueResponse] })
  topCampaigns: CampaignRevenueResponse[];
}

/** The report as the statement builds it (its parts are already in their response shape). */
export function toRevenueReportResponse(r: RevenueReport): RevenueReportResponse {
  return {
    overview: r.overview,
    trend: r.trend,
    byChannel: r.byChannel,
    topCampaigns: r.topCampaigns,
  };
}
