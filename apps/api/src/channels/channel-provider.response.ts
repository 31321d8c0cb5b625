// Response shapes of the provider-account routes (§17): an account (never its credentials), the
// `http` provider's generated secret once, and a test send's answer.
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { PROVIDER_ACCOUNT_STATUSES, PROVIDER_CHANNELS, PROVIDER_NAMES } from '@app/domain';
import type { ProviderAccountRecord, ProviderAccountResult, TestSendResult } from '@app/domain';

const OBJECT_SCHEMA = { type: 'object', additionalProperties: true } as const;

/** The ChannelProvider of §17. */
export class ChannelProviderResponse {
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
  createdAt: Date;

  @ApiProperty({ type: String, format: 'date-time' })
  updatedAt: Date;
}

export class CreatedChannelProviderResponse extends ChannelProviderResponse {
  /** `http` provider only, when no secret was given: the generated signing secret, shown once. */
  @ApiPropertyOptional()
  secret?: string;
}

export class ChannelProviderTestResponse {
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

export function toChannelProviderResponse(a: ProviderAccountRecord): ChannelProviderResponse {
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
export function toCreatedChannelProviderResponse(
  r: ProviderAccountResult,
): CreatedChannelProviderResponse {
  const body = toChannelProviderResponse(r.account);
  return r.secret ? { ...body, secret: r.secret } : body;
}

export function toChannelProviderTestResponse(r: TestSendResult): ChannelProviderTestResponse {
  return {
    outcome: r.outcome,
    providerMessageId: r.providerMessageId,
    status: r.status,
    code: r.code,
    message: r.message,
    retryAfterMs: r.retryAfterMs,
    providerStatus: r.providerStatus,
  };
}
