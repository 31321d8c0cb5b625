// Response shapes of the webhook endpoint routes (§10): the endpoint with its delivery counters,
// never its secret but once, at creation and on regeneration.
import { ApiProperty } from '@nestjs/swagger';
import type { WebhookEndpointView } from '@app/domain';
import { WEBHOOK_EVENT_TYPE } from '../http/openapi-enums';

/** A header added to every request to the endpoint. */
export class WebhookCustomHeaderResponse {
  key: string;

  value: string;
}

export class WebhookEndpointResponse {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ format: 'uuid' })
  organizationId: string;

  url: string;

  @ApiProperty({ type: String, nullable: true })
  description: string | null;

  @ApiProperty({ ...WEBHOOK_EVENT_TYPE, isArray: true })
  events: string[];

  isActive: boolean;

  /** Total attempts including the first. */
  maxRetries: number;

  @ApiProperty({ type: [WebhookCustomHeaderResponse] })
  customHeaders: WebhookCustomHeaderResponse[];

  /** Per-attempt timeout in seconds. */
  timeoutSeconds: number;

  /** When the newest delivery was created. */
  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  lastTriggeredAt: Date | null;

  @ApiProperty({ type: String, format: 'date-time' })
  createdAt: Date;

  @ApiProperty({ type: String, format: 'date-time' })
  updatedAt: Date;

  /** Finished deliveries: delivered or failed. */
  totalDeliveries: number;

  /** Delivered in percent of the finished deliveries, one decimal; 0 without any. */
  successRate: number;
}

/** Creation and regeneration only: the endpoint plus its signing secret. */
export class WebhookEndpointWithSecretResponse extends WebhookEndpointResponse {
  /** Signs every request (`X-Webhook-Signature`); shown here only. */
  secret: string;
}

export function toWebhookEndpointResponse(v: WebhookEndpointView): WebhookEndpointResponse {
  const e = v.endpoint;
  return {
    id: e.id,
    organizationId: e.organizationId,
    url: e.url,
    description: e.description,
    events: e.events,
    isActive: e.isActive,
    maxRetries: e.maxRetries,
    customHeaders: e.customHeaders.map((h) => ({ key: h.key, value: h.value })),
    timeoutSeconds: e.timeoutSeconds,
    lastTriggeredAt: v.lastTriggeredAt,
    createdAt: e.createdAt,
    updatedAt: e.updatedAt,
    totalDeliveries: v.totalDeliveries,
    successRate: v.successRate,
  };
}

export function toWebhookEndpointWithSecretResponse(r: {
  view: WebhookEndpointView;
  secret: string;
}): WebhookEndpointWithSecretResponse {
  return { ...toWebhookEndpointResponse(r.view), secret: r.secret };
}
