// Request bodies of POST /api/v1/send/{sms,whatsapp,telegram,imessage,push} (§17), validated at
// the edge; the rules that span fields (contact or address, a provider of the channel, text or
// template, title or body) are the domain's.
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsDefined,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  IsUrl,
  IsUUID,
  Matches,
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

export class TrackDto {
  /** Sends each http(s) link of the text through a short tracked link (`/t/c/{id}`). */
  @IsOptional()
  @IsBoolean()
  clicks?: boolean;
}

class TrackedSendDto extends ChannelSendDto {
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => TrackDto)
  track?: TrackDto;
}

export class SendSmsDto extends TrackedSendDto {
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

/** A chat message of up to 4,096 characters (Telegram's limit; WhatsApp takes the same). */
const MAX_CHAT_TEXT = 4096;

export class WhatsappToDto {
  /** A contact of the organization: its primary WhatsApp number that may be sent to. */
  @IsOptional()
  @IsUUID()
  contactId?: string;

  /** Or a number, E.164 (`+14155550100`). */
  @IsOptional()
  @IsString()
  @MaxLength(32)
  phoneNumber?: string;
}

export class WhatsappTemplateDto {
  /** The approved template's name, as in WhatsApp Manager. */
  @IsDefined()
  @IsString()
  @Matches(/^[a-z0-9_]{1,512}$/, { message: 'name must be a template name (a-z, 0-9, _)' })
  name: string;

  /** Its language code, e.g. `en_US`. */
  @IsDefined()
  @IsString()
  @Matches(/^[a-z]{2,3}(_[A-Z]{2})?$/, { message: 'language must be a code such as en_US' })
  language: string;

  /** The body's parameters `{{1}}`, `{{2}}`… in order. */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  @MaxLength(1024, { each: true })
  parameters?: string[];
}

export class WhatsappContentDto {
  /** Free text: delivered inside the 24-hour customer-service window. */
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(MAX_CHAT_TEXT)
  text?: string;

  /** A template: what reaches the contact outside the window. */
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => WhatsappTemplateDto)
  template?: WhatsappTemplateDto;
}

export class SendWhatsappDto extends TrackedSendDto {
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => WhatsappToDto)
  to: WhatsappToDto;

  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => WhatsappContentDto)
  content: WhatsappContentDto;
}

export class TelegramToDto {
  /** A contact of the organization whose Telegram record opened the bot's deep link. */
  @IsOptional()
  @IsUUID()
  contactId?: string;

  /** Or a chat id the bot has a chat with. */
  @IsOptional()
  @IsString()
  @MaxLength(24)
  chatId?: string;
}

export class TelegramContentDto {
  @IsDefined()
  @IsString()
  @MinLength(1)
  @MaxLength(MAX_CHAT_TEXT)
  text: string;

  /** Telegram's formatting of the text; plain when absent. */
  @IsOptional()
  @IsIn(['HTML', 'MarkdownV2'])
  parseMode?: 'HTML' | 'MarkdownV2';
}

export class SendTelegramDto extends TrackedSendDto {
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => TelegramToDto)
  to: TelegramToDto;

  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => TelegramContentDto)
  content: TelegramContentDto;
}

export class ImessageToDto {
  /** A contact of the organization: its primary iMessage address that may be sent to. */
  @IsOptional()
  @IsUUID()
  contactId?: string;

  /** Or an Apple ID: an e-mail address or an E.164 phone number. */
  @IsOptional()
  @IsString()
  @MaxLength(320)
  appleId?: string;
}

export class ImessageContentDto {
  @IsDefined()
  @IsString()
  @MinLength(1)
  @MaxLength(MAX_CHAT_TEXT)
  text: string;

  /** Up to 10 public https URLs of media the provider fetches. */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(10)
  @IsUrl({ protocols: ['https'], require_protocol: true }, { each: true })
  mediaUrls?: string[];
}

export class SendImessageDto extends TrackedSendDto {
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => ImessageToDto)
  to: ImessageToDto;

  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => ImessageContentDto)
  content: ImessageContentDto;
}
