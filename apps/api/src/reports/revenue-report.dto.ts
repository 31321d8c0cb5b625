// Query of the revenue attribution report.
import { IsIn, IsISO8601, IsOptional, IsUUID } from 'class-validator';
import { CHANNELS } from '@app/domain';

export class RevenueReportQueryDto {
  /** `YYYY-MM-DD` (from the start of that UTC day) or a date-time; inclusive. Default: 29 days before today. */
  @IsOptional()
  @IsISO8601({ strict: true })
  from?: string;

  /** `YYYY-MM-DD` (through the end of that UTC day) or a date-time; exclusive. Default: end of today (UTC). */
  @IsOptional()
  @IsISO8601({ strict: true })
  to?: string;

  @IsOptional()
  @IsIn(CHANNELS)
  channel?: string;

  @IsOptional()
  @IsUUID()
  campaignId?: string;
}
