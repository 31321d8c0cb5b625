// Bodies and response models of the provider-account routes (§17). Each provider's credential and
// settings fields are checked by the domain (channel-provider.rules.ts), the same rules as the CLI.
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsBoolean,
  IsDefined,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import {
  MAX_PER_SECOND_LIMIT,
  PROVIDER_ACCOUNT_STATUSES,
  PROVIDER_CHANNELS,
  PROVIDER_NAMES,
} from '@app/domain';
import type {
  ProviderAccountRecord,
  ProviderAccountResult,
  ProviderChannel,
  ProviderName,
  TestSendResult,
} from '@app/domain';
import { PageQueryDto } from '../http/page-query.dto';
import { IsOmittable } from '../http/validation';

const OBJECT_SCHEMA = { type: 'object', additionalProperties: true } as const;

export class CreateChannelProviderDto {
  @IsIn(PROVIDER_CHANNELS)
  channel: ProviderChannel;

  /** `twilio` (sms), `whatsapp-cloud`, `telegram-bot`, `fcm` and `apns` (push), `http` (any channel). */
  @IsIn(PROVIDER_NAMES)
  provider: ProviderName;

  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  name: string;

  /** The provider's secrets (write-only: never returned); fields per provider in docs/channels/providers.md. */
  @ApiProperty(OBJECT_SCHEMA)
  @IsDefined()
  @IsObject()
  credentials: Record<string, unknown>;

  /** Non-secret settings: sender number, bundle id, `apiBaseUrl`…; fields per provider. */
  @ApiPropertyOptional(OBJECT_SCHEMA)
  @IsOptional()
  @IsObject()
  settings?: Record<string, unknown>;

  /** Makes this the channel's default provider (the channel's first provider is, regardless). */
  @IsOptional()
  @IsBoolean()
  isDefault?: boolean;

  /** Messages a second at most; default from the provider's published limits. */
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_PER_SECOND_LIMIT)
  maxPerSecond?: number;
}

export class UpdateChannelProviderDto {
  @IsOmittable()
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  name?: string;

  /** Replaces the credentials whole (write-only). */
  @ApiPropertyOptional(OBJECT_SCHEMA)
  @IsOmittable()
  @IsObject()
  credentials?: Record<string, unknown>;

  /** Replaces the settings whole. */
  @ApiPropertyOptional(OBJECT_SCHEMA)
  @IsOmittable()
  @IsObject()
  settings?: Record<string, unknown>;

  /** `true` moves the channel's default here. */
  @IsOmittable()
  @IsBoolean()
  isDefault?: boolean;

  /** `disabled` stops sending through it; `active` resumes it (a failing provider too). */
  @IsOmittable()
  @IsIn(['active', 'disabled'])
  status?: 'active' | 'disabled';

  @IsOmittable()
  @IsInt()
  @Min(1)
  @Max(MAX_PER_SECOND_LIMIT)
  maxPerSecond?: number;
}

export class ChannelProviderQueryDto extends PageQueryDto {
  @IsOptional()
  @IsIn(PROVIDER_CHANNELS)
  channel?: ProviderChannel;
}

export class TestChannelProviderDto {
  /** The channel's address: an E.164 number (sms, whatsapp), a device token (push), a chat id. */
  @IsString()
  @IsNotEmpty()
  @MaxLength(4096)
  to: string;

  /** The message text (every channel but push). */
  @IsOptional()
  @IsString()
  text?: string;

  /** Push: the notification's title. */
  @IsOptional()
  @IsString()
  title?: string;

  /** Push: the notification's body. */
  @IsOptional()
  @IsString()
  body?: string;

  /** Push: the device's platform; default `ios` for APNs, `android` for FCM. */
  @IsOptional()
  @IsIn(['ios', 'android', 'web'])
  platform?: 'ios' | 'android' | 'web';
}

export class ChannelProviderDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ enum: PROVIDER_CHANNELS })
  channel: string;

  @ApiProperty({ enum: PROVIDER_NAMES })
  provider: string;

  name: string;

  @ApiProperty(OBJECT_SCHEMA)
  settings: Record<string, unknown>;

  /** Always true: credentials are stored (encrypted) and never returned. */
  @ApiProperty({ enum: [true] })
  hasCredentials: true;

  /** `failing`: the provider refused the credentials on consecutive sends. */
  @ApiProperty({ enum: PROVIDER_ACCOUNT_STATUSES })
  status: string;

  isDefault: boolean;

  maxPerSecond: number;

  @ApiProperty({ type: String, format: 'date-time' })
  createdAt: string;

  @ApiProperty({ type: String, format: 'date-time' })
  updatedAt: string;
}

export class CreatedChannelProviderDto extends ChannelProviderDto {
  /** `http` provider only, when no secret was given: the generated signing secret, shown once. */
  @ApiPropertyOptional()
  secret?: string;
}

export class TestSendResultDto {
  /** What the provider answered: `accepted`, `rejected`, `throttled`, `unavailable`, `unauthorized`. */
  @ApiProperty({ enum: ['accepted', 'rejected', 'throttled', 'unavailable', 'unauthorized'] })
  outcome: string;

  @ApiProperty({ type: String, nullable: true })
  providerMessageId: string | null;

  @ApiProperty({ type: String, enum: ['sent', 'delivered'], nullable: true })
  status: string | null;

  /** The provider's error code of a rejection. */
  @ApiProperty({ type: String, nullable: true })
  code: string | null;

  @ApiProperty({ type: String, nullable: true })
  message: string | null;

  @ApiProperty({ type: Number, nullable: true })
  retryAfterMs: number | null;

  /** The provider account's status after this answer. */
  @ApiProperty({ enum: PROVIDER_ACCOUNT_STATUSES })
  providerStatus: string;
}

/** The ChannelProvider of §17 (never its credentials). */
export function toChannelProviderResponse(a: ProviderAccountRecord) {
  return {
    id: a.id,
    channel: a.channel,
    provider: a.provider,
    name: a.name,
    settings: a.settings,
    hasCredentials: true as const,
    status: a.status,
    isDefault: a.isDefault,
    maxPerSecond: a.maxPerSecond,
    createdAt: a.createdAt,
    updatedAt: a.updatedAt,
  };
}

/** A created or changed account, with the generated `http` secret when there is one. */
export function toCreatedChannelProviderResponse(r: ProviderAccountResult) {
  const body = toChannelProviderResponse(r.account);
  return r.secret ? { ...body, secret: r.secret } : body;
}

export function toTestSendResponse(r: TestSendResult) {
  return { ...r };
}
