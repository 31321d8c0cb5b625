// Request shapes of the campaign routes, and the conversion's request and response.
import { PageQueryDto } from '../http/page-query.dto';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsDate,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { CAMPAIGN_CHANNELS, CAMPAIGN_STATUSES, CHANNELS } from '@app/domain';
import type { CampaignChannel, CampaignContent } from '@app/domain';
import {
  ImessageContentDto,
  PushContentDto,
  SmsContentDto,
  TelegramContentDto,
  WhatsappContentDto,
} from '../messaging/send-channels.dto';
import { IsCurrencyCode, IsMailbox, IsMoneyAmount, IsSingleLine } from './campaign-validators';
import { IsOmittable, ToDate } from '../http/validation';

/**
 * What a campaign sends on each channel beyond email, as the send routes take it. A request's
 * `content` property is typed by the domain's interface rather than this class: class-transformer
 * would take this class, which has a `push` member, for an array type, and fail on a JSON array
 * given there instead of answering 422.
 */
export class CampaignContentDto {
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => SmsContentDto)
  sms?: SmsContentDto;

  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => WhatsappContentDto)
  whatsapp?: WhatsappContentDto;

  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => TelegramContentDto)
  telegram?: TelegramContentDto;

  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => ImessageContentDto)
  imessage?: ImessageContentDto;

  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => PushContentDto)
  push?: PushContentDto;
}

/** A daily window in each contact's time zone during which the campaign sends it nothing. */
export class QuietHoursDto {
  /** `HH:MM`, 24-hour, e.g. `21:00`. */
  @IsString()
  @Matches(/^([01]\d|2[0-3]):[0-5]\d$/, { message: 'start must be HH:MM (24-hour)' })
  start: string;

  /** `HH:MM`, 24-hour, e.g. `08:00` (a window may span midnight). */
  @IsString()
  @Matches(/^([01]\d|2[0-3]):[0-5]\d$/, { message: 'end must be HH:MM (24-hour)' })
  end: string;
}

export class CreateCampaignDto {
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name: string;

  /** One channel; `channels` gives several. */
  @IsOptional()
  @IsIn(CAMPAIGN_CHANNELS)
  channel?: CampaignChannel;

  /**
   * The channels in the order each contact is tried on: it gets one message, on the first it can
   * be reached on. Default: the list's preferredChannels, else ["email"].
   */
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(6)
  @ArrayUnique()
  @IsIn(CAMPAIGN_CHANNELS, { each: true })
  channels?: CampaignChannel[];

  /** The content of each channel beyond email. */
  @ApiPropertyOptional({ type: CampaignContentDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => CampaignContentDto)
  content?: CampaignContent;

  /**
   * No message to a contact between `start` and `end` in its own time zone (UTC when it has
   * none): a contact met then is held until `end`.
   */
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => QuietHoursDto)
  quietHours?: QuietHoursDto;

  /** Required when the campaign goes out on email, as `from` and html or text are. */
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(998)
  @IsSingleLine()
  subject?: string;

  /** html or text (or both) is required. */
  @IsOptional()
  @IsString()
  @MaxLength(1_000_000)
  html?: string;

  @IsOptional()
  @IsString()
  @MaxLength(1_000_000)
  text?: string;

  @IsOptional()
  @IsString()
  @MaxLength(320)
  @IsMailbox()
  from?: string;

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
  channel?: CampaignChannel;

  @IsOmittable()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(6)
  @ArrayUnique()
  @IsIn(CAMPAIGN_CHANNELS, { each: true })
  channels?: CampaignChannel[];

  /** Replaces the content of every channel beyond email. */
  @ApiPropertyOptional({ type: CampaignContentDto })
  @IsOmittable()
  @IsObject()
  @ValidateNested()
  @Type(() => CampaignContentDto)
  content?: CampaignContent;

  /** null removes the quiet hours. */
  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @IsObject()
  @ValidateNested()
  @Type(() => QuietHoursDto)
  quietHours?: QuietHoursDto | null;

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

/** Who a campaign would reach: its target, and its channels (default as a new campaign's). */
export class CampaignReachRequestDto {
  @IsOptional()
  @IsUUID()
  listId?: string;

  @IsOptional()
  @IsUUID()
  segmentId?: string;

  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(6)
  @ArrayUnique()
  @IsIn(CAMPAIGN_CHANNELS, { each: true })
  channels?: CampaignChannel[];
}

export class CampaignListQueryDto extends PageQueryDto {
  @IsOptional()
  @IsIn(CAMPAIGN_STATUSES)
  status?: (typeof CAMPAIGN_STATUSES)[number];
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
