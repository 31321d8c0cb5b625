// Request and response shapes of the campaign routes.
import { PageQueryDto } from '../http/page-query.dto';
import { Transform } from 'class-transformer';
import {
  IsDate,
  IsIn,
  IsOptional,
  IsString,
  IsUUID,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateIf,
} from 'class-validator';
import { Campaign, CAMPAIGN_CHANNELS, CAMPAIGN_STATUSES, CHANNELS, Conversion } from '@app/domain';
import { IsCurrencyCode, IsMailbox, IsMoneyAmount, IsSingleLine } from './campaign-validators';
import { IsOmittable, ToDate } from '../http/validation';

export class CreateCampaignDto {
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name: string;

  @IsOptional()
  @IsIn(CAMPAIGN_CHANNELS)
  channel?: 'email';

  @IsString()
  @MinLength(1)
  @MaxLength(998)
  @IsSingleLine()
  subject: string;

  /** html or text (or both) is required. */
  @IsOptional()
  @IsString()
  @MaxLength(1_000_000)
  html?: string;

  @IsOptional()
  @IsString()
  @MaxLength(1_000_000)
  text?: string;

  @IsString()
  @MaxLength(320)
  @IsMailbox()
  from: string;

  /** Exactly one of listId and segmentId. */
  @IsOptional()
  @IsUUID()
  listId?: string;

  @IsOptional()
  @IsUUID()
  segmentId?: string;
}

export class UpdateCampaignDto {
  @IsOmittable()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name?: string;

  @IsOmittable()
  @IsIn(CAMPAIGN_CHANNELS)
  channel?: 'email';

  @IsOmittable()
  @IsString()
  @MinLength(1)
  @MaxLength(998)
  @IsSingleLine()
  subject?: string;

  /** null removes the part; the campaign keeps at least one of html and text. */
  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @IsString()
  @MaxLength(1_000_000)
  html?: string | null;

  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @IsString()
  @MaxLength(1_000_000)
  text?: string | null;

  @IsOmittable()
  @IsString()
  @MaxLength(320)
  @IsMailbox()
  from?: string;

  /** Giving one target replaces the other. */
  @IsOmittable()
  @IsUUID()
  listId?: string;

  @IsOmittable()
  @IsUUID()
  segmentId?: string;
}

export class CampaignListQueryDto extends PageQueryDto {
  @IsOptional()
  @IsIn(CAMPAIGN_STATUSES)
  status?: (typeof CAMPAIGN_STATUSES)[number];
}

export function toCampaignResponse(c: Campaign) {
  return {
    id: c.id,
    organizationId: c.organizationId,
    name: c.name,
    channel: c.channel,
    subject: c.subject,
    html: c.html,
    text: c.text,
    from: c.from,
    listId: c.listId,
    segmentId: c.segmentId,
    status: c.status,
    recipientCount: c.recipientCount,
    sentCount: c.sentCount,
    failedCount: c.failedCount,
    startedAt: c.startedAt,
    completedAt: c.completedAt,
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
  };
}

export class RecordConversionDto {
  @IsUUID()
  campaignId: string;

  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @IsUUID()
  contactId?: string | null;

  /** The shop's order id; a repeated orderId records nothing new. */
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  orderId: string;

  /** Amount in the currency's major unit, at most 2 decimals. */
  @IsMoneyAmount()
  @Min(0)
  @Max(999_999_999_999.99)
  revenue: number;

  /** ISO 4217 code; default USD. */
  @IsOptional()
  @Transform(({ value }: { value: unknown }) =>
    typeof value === 'string' ? value.toUpperCase() : value,
  )
  @IsCurrencyCode()
  currency?: string;

  /** The channel the order is attributed to; default the campaign's channel. */
  @IsOptional()
  @IsIn(CHANNELS)
  channel?: string;

  /** Default: when the request is received. */
  @IsOptional()
  @ToDate()
  @IsDate()
  occurredAt?: Date;
}

export function toConversionResponse(c: Conversion) {
  return {
    id: c.id,
    organizationId: c.organizationId,
    campaignId: c.campaignId,
    contactId: c.contactId,
    orderId: c.orderId,
    revenue: c.revenue,
    currency: c.currency,
    channel: c.channel,
    occurredAt: c.occurredAt,
    createdAt: c.createdAt,
  };
}
