// Bodies of the channel-record routes: a create body is the update body plus the identifying
// fields; an update body never carries the encrypted value.
import { applyDecorators } from '@nestjs/common';
import { Transform } from 'class-transformer';
import {
  IsDefined,
  IsBoolean,
  IsDate,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  IsISO31661Alpha2,
  MaxLength,
  MinLength,
  ValidateIf,
} from 'class-validator';
import {
  EMAIL_STATUSES,
  IMESSAGE_STATUSES,
  PUSH_PLATFORMS,
  PUSH_STATUSES,
  SMS_STATUSES,
  TELEGRAM_STATUSES,
  WHATSAPP_STATUSES,
} from '@app/domain';
import type {
  EmailStatus,
  ImessageStatus,
  PushPlatform,
  PushStatus,
  SmsStatus,
  TelegramStatus,
  WhatsappStatus,
} from '@app/domain';
import { ToDate } from '../http/validation';
import { ContactRule } from './contact-rules.decorators';

/** Surrounding whitespace is not part of the value. */
export const Trim = () =>
  Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value));

/** Optional, but null is not a value for it. */
export const OptionalValue = () => ValidateIf((_: object, v: unknown) => v !== undefined);

class PrimaryFlag {
  @OptionalValue()
  @IsBoolean()
  isPrimary?: boolean;
}

const PHONE = { message: '$property must be a phone number in international format' };

/** ISO 3166-1 alpha-2, any case. */
const CountryCode = () =>
  applyDecorators(
    Transform(({ value }: { value: unknown }) =>
      typeof value === 'string' ? value.toUpperCase() : value,
    ),
    IsISO31661Alpha2(),
  );

export class UpdateEmailDto extends PrimaryFlag {
  @OptionalValue()
  @IsIn(EMAIL_STATUSES)
  status?: EmailStatus;
}

export class CreateEmailDto extends UpdateEmailDto {
  @IsDefined()
  @Trim()
  @ContactRule('email')
  email: string;

  @IsOptional()
  @ToDate()
  @IsDate()
  verifiedAt?: Date | null;
}

export class UpdateSmsDto extends PrimaryFlag {
  @OptionalValue()
  @IsIn(SMS_STATUSES)
  status?: SmsStatus;
}

export class CreateSmsDto extends UpdateSmsDto {
  @IsDefined()
  @IsString(PHONE)
  @ContactRule('phoneNumber')
  phoneNumber: string;

  /** Two-letter country code; derived from the calling code when omitted. */
  @OptionalValue()
  @CountryCode()
  countryCode?: string;
}

export class UpdateWhatsappDto extends PrimaryFlag {
  @OptionalValue()
  @IsIn(WHATSAPP_STATUSES)
  status?: WhatsappStatus;

  @OptionalValue()
  @IsBoolean()
  isBusinessAccount?: boolean;

  @IsOptional()
  @ToDate()
  @IsDate()
  lastSeenAt?: Date | null;
}

export class CreateWhatsappDto extends UpdateWhatsappDto {
  @IsDefined()
  @IsString(PHONE)
  @ContactRule('phoneNumber')
  phoneNumber: string;

  @OptionalValue()
  @CountryCode()
  countryCode?: string;
}

export class UpdateTelegramDto extends PrimaryFlag {
  @OptionalValue()
  @IsIn(TELEGRAM_STATUSES)
  status?: TelegramStatus;

  @IsOptional()
  @ToDate()
  @IsDate()
  lastActiveAt?: Date | null;
}

export class CreateTelegramDto extends UpdateTelegramDto {
  @IsDefined()
  @IsString(PHONE)
  @ContactRule('phoneNumber')
  phoneNumber: string;

  @OptionalValue()
  @CountryCode()
  countryCode?: string;

  /** The handle, without or with its leading @. */
  @IsOptional()
  @IsString()
  @ContactRule('telegramUsername')
  username?: string | null;
}

export class UpdateImessageDto extends PrimaryFlag {
  @OptionalValue()
  @IsIn(IMESSAGE_STATUSES)
  status?: ImessageStatus;
}

export class CreateImessageDto extends UpdateImessageDto {
  @IsDefined()
  @Trim()
  @ContactRule('email')
  appleId: string;

  @IsOptional()
  @IsString(PHONE)
  @ContactRule('phoneNumber')
  phoneNumber?: string | null;
}

export class UpdatePushDto extends PrimaryFlag {
  @OptionalValue()
  @IsIn(PUSH_STATUSES)
  status?: PushStatus;

  @IsOptional()
  @IsString()
  @MaxLength(64)
  appVersion?: string | null;

  @IsOptional()
  @IsObject()
  deviceInfo?: Record<string, unknown> | null;

  @IsOptional()
  @ToDate()
  @IsDate()
  lastUsedAt?: Date | null;

  @IsOptional()
  @ToDate()
  @IsDate()
  expiresAt?: Date | null;
}

export class CreatePushDto extends UpdatePushDto {
  @IsDefined()
  @IsString()
  @MinLength(1)
  @MaxLength(4096)
  deviceToken: string;

  @IsDefined()
  @IsIn(PUSH_PLATFORMS)
  platform: PushPlatform;
}
