// Webhook endpoints as the dashboard offers them (§10, §15): the spec's messages, the event
// groups, and the dashboard's retry range.
import { webhookEventTypeValues } from '../../api/schema-values';
import type { WebhookEventType } from '../../api/types';

/** The event names the API accepts (the OpenAPI document's WebhookEventType). */
export type EventType = WebhookEventType;

export const MESSAGES = {
  noEvents: 'Select at least one event',
  invalidUrl: 'Please enter a valid URL',
  limitReached: 'Webhook endpoint limit reached',
} as const;

/** Never the secret: what a listing shows where the secret would be (spec). */
export const SECRET_PLACEHOLDER = `whsec_${'•'.repeat(24)}`;

/** The groups of events the form offers, by name prefix: each holds the document's events of it. */
const GROUP_PREFIXES = [
  { label: 'Email events', prefix: 'email.' },
  { label: 'Contact events', prefix: 'contact.' },
  { label: 'Campaign events', prefix: 'campaign.' },
  { label: 'Push events', prefix: 'push.' },
];

export const EVENT_GROUPS: { label: string; events: EventType[] }[] = GROUP_PREFIXES.map((g) => ({
  label: g.label,
  events: webhookEventTypeValues.filter((e) => e.startsWith(g.prefix)),
}));

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
