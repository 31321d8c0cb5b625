// Bodies of the provider-account routes (§17). Each provider's credential and
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
import { MAX_PER_SECOND_LIMIT, PROVIDER_CHANNELS, PROVIDER_NAMES } from '@app/domain';
import type { ProviderChannel, ProviderName } from '@app/domain';
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
