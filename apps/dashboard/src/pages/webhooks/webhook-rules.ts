// Webhook endpoints as the dashboard offers them (§10, §15): the spec's messages, the event
// groups, and the dashboard's retry range.
import type { components } from '../../api/schema';

/** The event names the API accepts (from its OpenAPI document: a renamed event fails to compile). */
export type EventType = components['schemas']['CreateWebhookEndpointDto']['events'][number];

export const MESSAGES = {
  noEvents: 'Select at least one event',
  invalidUrl: 'Please enter a valid URL',
  limitReached: 'Webhook endpoint limit reached',
} as const;

/** Never the secret: what a listing shows where the secret would be (spec). */
export const SECRET_PLACEHOLDER = `whsec_${'•'.repeat(24)}`;

export const EVENT_GROUPS: { label: string; events: EventType[] }[] = [
  {
    label: 'Email events',
    events: [
      'email.sent',
      'email.delivered',
      'email.deferred',
      'email.bounced',
      'email.opened',
      'email.clicked',
      'email.complained',
    ],
  },
  {
    label: 'Contact events',
    events: ['contact.created', 'contact.updated', 'contact.deleted', 'contact.unsubscribed'],
  },
  { label: 'Campaign events', events: ['campaign.sent'] },
  { label: 'Push events', events: ['push.token_invalidated'] },
];

/**
 * The dashboard offers 0–5 retries (spec). maxRetries counts every attempt including the first
 * (API 1–20), so the dashboard's value is the number of attempts after the first: 0 retries is
 * one attempt and no retry, 5 retries is six attempts.
 */
export const MAX_DASHBOARD_RETRIES = 5;
export const DEFAULT_RETRIES = 4; // the API's default of 5 attempts

export function retriesOf(maxRetries: number): number {
  return Math.max(0, maxRetries - 1);
}

export function maxRetriesOf(retries: number): number {
  return retries + 1;
}

/** A URL the form accepts before asking the API: absolute http(s) with a host. */
export function isValidUrl(value: string): boolean {
  try {
    const url = new URL(value.trim());
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname.length > 0;
  } catch {
    return false;
  }
}
