// Response shapes of the spec's Webhook endpoint and Webhook delivery (never the secret).
import type { DeliveryView, WebhookAttempt, WebhookEndpointView } from '@app/domain';

export function toEndpointResponse(v: WebhookEndpointView) {
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

/** Creation and regeneration only: the endpoint plus its signing secret. */
export function toEndpointWithSecret(r: { view: WebhookEndpointView; secret: string }) {
  return { ...toEndpointResponse(r.view), secret: r.secret };
}

function toAttemptResponse(a: WebhookAttempt) {
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

export function toDeliveryResponse(v: DeliveryView) {
  const d = v.delivery;
  const out: Record<string, unknown> = {
    id: d.id,
    organizationId: d.organizationId,
    webhookEndpointId: d.webhookEndpointId,
    type: d.type,
    // The body the customer's server receives, in its key order.
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
  if (v.attempts) out.attempts = v.attempts.map(toAttemptResponse);
  return out;
}
