// Webhook delivery statuses, the plan limits on endpoints, defaults and messages (§10). The
// event types are the event path's (events/event-types.ts).
import type { Plan } from '../tenancy/organization.entity';

export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];

/** Endpoints an organization may hold, by plan (§10). */
export const WEBHOOK_ENDPOINT_LIMITS: Record<Plan, number> = {
  free: 3,
  pro: 20,
  enterprise: 100,
};

export const WEBHOOK_DEFAULTS = {
  maxRetries: 5,
  timeoutSeconds: 30,
  maxRetriesLimit: 20,
  timeoutSecondsLimit: 300,
  customHeadersLimit: 20,
  /** Kept from a response body, per attempt and on the delivery. */
  responseBodyPrefixBytes: 4096,
  /** Retry waits are capped at 24 h (§10). */
  maxRetryDelayMs: 24 * 60 * 60 * 1000,
} as const;

export const WEBHOOK_MESSAGES = {
  invalidUrl: 'Please enter a valid URL',
  noEvents: 'Select at least one event',
  limitReached: 'Webhook endpoint limit reached',
  alreadyDelivered: 'Cannot retry a delivery that has already been delivered',
  maxRetriesPrefix: 'Max retries exceeded. Last error: ',
  endpointInactive: 'Webhook endpoint is inactive',
} as const;
