// Response shapes of the API key routes (never the key's hash; its value only once, at creation).
import { ApiProperty } from '@nestjs/swagger';
import type { ApiKey } from '@app/domain';
import { SCOPE } from '../http/openapi-enums';

/** An API key of the organization. */
export class ApiKeyResponse {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ format: 'uuid' })
  organizationId: string;

  name: string;

  /** The key's first characters, to tell keys apart (`bk_…`). */
  prefix: string;

  @ApiProperty({ ...SCOPE, isArray: true })
  scopes: string[];

  /** Requests per minute. */
  rateLimitPerMinute: number;

  /** Requests per UTC day; null for no cap. */
  @ApiProperty({ type: Number, nullable: true })
  rateLimitPerDay: number | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  expiresAt: Date | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  revokedAt: Date | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  lastUsedAt: Date | null;

  @ApiProperty({ type: String, format: 'date-time' })
  createdAt: Date;

  @ApiProperty({ type: String, format: 'date-time' })
  updatedAt: Date;
}

/** A key just created, with its value: shown here once and never again. */
export class CreatedApiKeyResponse extends ApiKeyResponse {
  key: string;
}

export function toApiKeyResponse(k: ApiKey): ApiKeyResponse {
  return {
    id: k.id,
    organizationId: k.organizationId,
    name: k.name,
    prefix: k.keyPrefix,
    scopes: k.scopes,
    rateLimitPerMinute: k.rateLimitPerMinute,
    rateLimitPerDay: k.rateLimitPerDay,
    expiresAt: k.expiresAt,
    revokedAt: k.revokedAt,
    lastUsedAt: k.lastUsedAt,
    createdAt: k.createdAt,
    updatedAt: k.updatedAt,
  };
}

export function toCreatedApiKeyResponse(r: { key: ApiKey; value: string }): CreatedApiKeyResponse {
  return { ...toApiKeyResponse(r.key), key: r.value };
}
