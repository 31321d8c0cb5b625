// Request bodies and queries of the webhook routes, validated at the edge (§10).
import { Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayNotEmpty,
  IsArray,
  IsBoolean,
  IsDefined,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  Max,
  MaxLength,
  Min,
  ValidateBy,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import {
  EVENT_TYPES,
  parseWebhookUrl,
  WEBHOOK_DEFAULTS,
  WEBHOOK_DELIVERY_STATUSES,
  WEBHOOK_MESSAGES,
  WebhookDeliveryStatus,
} from '@app/domain';
import { PickType } from '@nestjs/swagger';
import { PageQueryDto } from '../http/page-query.dto';
import { IsOmittable } from '../http/validation';

/** An absolute http(s) URL (rule `url`); private targets are checked by the service. */
const IsWebhookUrl = () =>
  ValidateBy({
    name: 'isUrl',
    validator: {
      validate: (value: unknown) => parseWebhookUrl(value) !== null,
      defaultMessage: () => WEBHOOK_MESSAGES.invalidUrl,
    },
  });

export class CustomHeaderDto {
  @IsString()
  @MaxLength(256)
  key: string;

  @IsString()
  @MaxLength(4096)
  value: string;
}

export class CreateWebhookEndpointDto {
  /** Where events are POSTed: an http(s) URL, HTTPS expected, reachable from the public internet. */
  @IsDefined({ message: WEBHOOK_MESSAGES.invalidUrl })
  @IsWebhookUrl()
  url: string;

  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @IsString()
  @MaxLength(500)
  description?: string | null;

  /** Event types to receive; at least one. */
  @IsDefined({ message: WEBHOOK_MESSAGES.noEvents })
  @IsArray({ message: WEBHOOK_MESSAGES.noEvents })
  @ArrayNotEmpty({ message: WEBHOOK_MESSAGES.noEvents })
  @IsIn(EVENT_TYPES, { each: true, message: 'Unknown event type' })
  events: string[];

  @IsOptional()
  @IsBoolean()
  isActive?: boolean;

  /** Total attempts including the first; default 5. */
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(WEBHOOK_DEFAULTS.maxRetriesLimit)
  maxRetries?: number;

  /** Added to every request; a header of the same name as a built-in replaces it. */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(WEBHOOK_DEFAULTS.customHeadersLimit)
  // Without it an item that is itself an array passes ValidateNested and reaches the service.
  @IsObject({ each: true })
  @ValidateNested({ each: true })
  @Type(() => CustomHeaderDto)
  customHeaders?: CustomHeaderDto[];

  /** Per-attempt timeout in seconds; default 30. */
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(WEBHOOK_DEFAULTS.timeoutSecondsLimit)
  timeoutSeconds?: number;
}

export class UpdateWebhookEndpointDto {
  @IsOmittable()
  @IsWebhookUrl()
  url?: string;

  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @IsString()
  @MaxLength(500)
  description?: string | null;

  @IsOmittable()
  @IsArray({ message: WEBHOOK_MESSAGES.noEvents })
  @ArrayNotEmpty({ message: WEBHOOK_MESSAGES.noEvents })
  @IsIn(EVENT_TYPES, { each: true, message: 'Unknown event type' })
  events?: string[];

  @IsOmittable()
  @IsBoolean()
  isActive?: boolean;

  @IsOmittable()
  @IsInt()
  @Min(1)
  @Max(WEBHOOK_DEFAULTS.maxRetriesLimit)
  maxRetries?: number;

  @IsOmittable()
  @IsArray()
  @ArrayMaxSize(WEBHOOK_DEFAULTS.customHeadersLimit)
  @IsObject({ each: true })
  @ValidateNested({ each: true })
  @Type(() => CustomHeaderDto)
  customHeaders?: CustomHeaderDto[];

  @IsOmittable()
  @IsInt()
  @Min(1)
  @Max(WEBHOOK_DEFAULTS.timeoutSecondsLimit)
  timeoutSeconds?: number;
}

function toList(value: unknown): unknown {
  if (value === undefined) return undefined;
  const items = Array.isArray(value) ? value : [value];
  return items.flatMap((v) => (typeof v === 'string' ? v.split(',') : [v])).filter((v) => v !== '');
}

/** A cursor list: `limit` as every page, `cursor` instead of `page`. */
export class DeliveryListQueryDto extends PickType(PageQueryDto, ['limit'] as const) {
  @IsOptional()
  @IsUUID()
  webhookEndpointId?: string;

  /** Repeatable: `status=failed&status=pending`. */
  @IsOptional()
  @Transform(({ value }) => toList(value))
  @IsIn(WEBHOOK_DELIVERY_STATUSES, { each: true })
  status?: WebhookDeliveryStatus[];

  @IsOptional()
  @IsIn(EVENT_TYPES)
  type?: string;

  /** `true` adds each delivery's attempts. */
  @IsOptional()
  @Transform(({ value }) => (value === 'true' ? true : value === 'false' ? false : value))
  @IsBoolean()
  includeAttempts?: boolean;

  /** From `meta.nextCursor` of the previous page. */
  @IsOptional()
  @IsString()
  @MaxLength(200)
  cursor?: string;
}
