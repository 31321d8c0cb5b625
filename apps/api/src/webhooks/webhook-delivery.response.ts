// Response shapes of the webhook delivery routes (§10): a delivery, its attempts, the cursor page.
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { WEBHOOK_DELIVERY_STATUSES } from '@app/domain';
import type { DeliveryList, DeliveryView, WebhookAttempt } from '@app/domain';
import { WEBHOOK_EVENT_TYPE } from '../http/openapi-enums';

/** One attempt: its HTTP status or error, the start of the answer, its timing. */
export class WebhookAttemptResponse {
  @ApiProperty({ format: 'uuid' })
  id: string;

  attemptNumber: number;

  @ApiProperty({ type: Number, nullable: true })
  httpStatusCode: number | null;

  @ApiProperty({ type: String, nullable: true })
  errorMessage: string | null;

  /** The first 4 KB of the answer. */
  @ApiProperty({ type: String, nullable: true })
  responseBody: string | null;

  durationMs: number;

  @ApiProperty({ type: String, format: 'date-time' })
  startedAt: Date;

  @ApiProperty({ type: String, format: 'date-time' })
  createdAt: Date;
}

/** The body the customer's server receives, in its key order. */
export class WebhookPayloadResponse {
  @ApiProperty({ format: 'uuid' })
  delivery_id: string;

  @ApiProperty(WEBHOOK_EVENT_TYPE)
  type: string;

  @ApiProperty({ format: 'date-time' })
  timestamp: string;

  /** The event's data, as the event type defines it. */
  @ApiProperty({ type: 'object', additionalProperties: true })
  data: unknown;
}

export class WebhookDeliveryResponse {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ format: 'uuid' })
  organizationId: string;

  @ApiProperty({ format: 'uuid' })
  webhookEndpointId: string;

  @ApiProperty(WEBHOOK_EVENT_TYPE)
  type: string;

  payload: WebhookPayloadResponse;

  @ApiProperty({ enum: WEBHOOK_DELIVERY_STATUSES })
  status: string;

  attemptCount: number;

  @ApiProperty({ type: Number, nullable: true })
  httpStatusCode: number | null;

  @ApiProperty({ type: String, nullable: true })
  errorMessage: string | null;

  @ApiProperty({ type: String, nullable: true })
  responseBody: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  nextRetryAt: Date | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  deliveredAt: Date | null;

  @ApiProperty({ type: String, format: 'date-time' })
  createdAt: Date;

  @ApiProperty({ type: String, format: 'date-time' })
  updatedAt: Date;

  /** Oldest first; in the list only with `includeAttempts=true`. */
  @ApiPropertyOptional({ type: [WebhookAttemptResponse] })
  attempts?: WebhookAttemptResponse[];
}

/** The `meta` of GET /webhook-deliveries: a cursor page, newest first. */
export class WebhookDeliveryPageMetaResponse {
  limit: number;

  hasMore: boolean;

  /** The `cursor` of the next page; null on the last. */
  @ApiProperty({ type: String, nullable: true })
  nextCursor: string | null;
}

export function toWebhookAttemptResponse(a: WebhookAttempt): WebhookAttemptResponse {
  return {
    id: a.id,
    attemptNumber: a.attemptNumber,
    httpStatusCode: a.httpStatusCode,
    errorMessage: a.errorMessage,
    responseBody: a.responseBody,
    durationMs: a.durationMs,
    startedAt: a.startedAt,
    createdAt: a.createdAt,
  };
}

export function toWebhookDeliveryResponse(v: DeliveryView): WebhookDeliveryResponse {
  const d = v.delivery;
  const out: WebhookDeliveryResponse = {
    id: d.id,
    organizationId: d.organizationId,
    webhookEndpointId: d.webhookEndpointId,
    type: d.type,
    payload: {
      delivery_id: d.payload.delivery_id,
      type: d.payload.type,
      timestamp: d.payload.timestamp,
      data: d.payload.data,
    },
    status: d.status,
    attemptCount: d.attemptCount,
    httpStatusCode: d.httpStatusCode,
    errorMessage: d.errorMessage,
    responseBody: d.responseBody,
    nextRetryAt: d.nextRetryAt,
    deliveredAt: d.deliveredAt,
    createdAt: d.createdAt,
    updatedAt: d.updatedAt,
  };
  if (v.attempts) out.attempts = v.attempts.map(toWebhookAttemptResponse);
  return out;
}

export function toWebhookDeliveryPageMetaResponse(
  meta: DeliveryList['meta'],
): WebhookDeliveryPageMetaResponse {
  return { limit: meta.limit, hasMore: meta.hasMore, nextCursor: meta.nextCursor };
}
