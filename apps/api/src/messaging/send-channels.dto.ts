// Request bodies of POST /api/v1/send/sms and /send/push (§17), validated at the edge; the rules
// that span fields (contact or address, a provider of the channel, title or body) are the domain's.
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsDefined,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  IsUrl,
  IsUUID,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateNested,
} from 'class-validator';

/** An SMS of up to 10 segments of UCS-2 text (more of GSM-7). */
const MAX_SMS_TEXT = 1600;
const MAX_PUSH_FIELD = 1000;
/** Device tokens: APNs 64 hex characters, FCM registration tokens about 160; room to spare. */
const MAX_DEVICE_TOKEN = 4096;

class ChannelSendDto {
  /** The provider account to send through; the channel's default when absent. */
  @IsOptional()
  @IsUUID()
  providerId?: string;

  @IsOptional()
  @IsUUID()
  campaignId?: string;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(10)
  @IsString({ each: true })
  @MaxLength(100, { each: true })
  tags?: string[];
}

export class SmsToDto {
  /** A contact of the organization: its primary SMS number that may be sent to. */
  @IsOptional()
  @IsUUID()
  contactId?: string;

  /** Or a number, E.164 (`+14155550100`); separators are dropped. */
  @IsOptional()
  @IsString()
  @MaxLength(32)
  phoneNumber?: string;
}

export class SmsContentDto {
  @IsDefined()
  @IsString()
  @MinLength(1)
  @MaxLength(MAX_SMS_TEXT)
  text: string;

  /** An MMS: up to 10 public https URLs of media the provider fetches. */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(10)
  @IsUrl({ protocols: ['https'], require_protocol: true }, { each: true })
  mediaUrls?: string[];
}

export class SendSmsDto extends ChannelSendDto {
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => SmsToDto)
  to: SmsToDto;

  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => SmsContentDto)
  content: SmsContentDto;
}

export class PushToDto {
  /** A contact of the organization: its primary push registration that may be sent to. */
  @IsOptional()
  @IsUUID()
  contactId?: string;

  /** Or a device token (an APNs token or an FCM registration token). */
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(MAX_DEVICE_TOKEN)
  deviceToken?: string;

  /** The token's platform; taken from the contact's record when it holds the token. */
  @IsOptional()
  @IsIn(['ios', 'android', 'web'])
  platform?: 'ios' | 'android' | 'web';
}

export class PushContentDto {
  @IsOptional()
  @IsString()
  @MaxLength(MAX_PUSH_FIELD)
  title?: string;

  @IsOptional()
  @IsString()
  @MaxLength(MAX_PUSH_FIELD)
  body?: string;

  /** Key-value data delivered to the app (string values). */
  @IsOptional()
  @IsObject()
  data?: Record<string, string>;

  @IsOptional()
  @IsUrl({ protocols: ['https'], require_protocol: true })
  imageUrl?: string;

  /** How long the provider keeps trying an offline device: up to 28 days. */
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(2_419_200)
  ttlSeconds?: number;

  /** Notifications with the same key replace each other on the device. */
  @IsOptional()
  @IsString()
  @MaxLength(64)
  collapseKey?: string;
}

export class SendPushDto extends ChannelSendDto {
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => PushToDto)
  to: PushToDto;

  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => PushContentDto)
  content: PushContentDto;
}
