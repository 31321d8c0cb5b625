// Meta's WhatsApp Cloud API codes as the adapter reads them (§17): Graph error codes of a send,
// and the statuses of its webhook notifications
// (developers.facebook.com/documentation/business-messaging/whatsapp/support/error-codes).
import type { StatusUpdate } from '../provider-adapter';

/**
 * How long a throttled send waits when Meta sends no Retry-After (it usually does not): the pair
 * rate limit lets about one message every 6 seconds reach the same person; the throughput limit
 * (130429) is per second; the account and app limits (80007, 4) are counted over an hour.
 */
export const THROTTLE_WAIT_MS: Record<number, number> = {
  130429: 1000,
  131056: 6000,
  80007: 60_000,
  4: 60_000,
};
/**
 * Spam rate limit: Meta restricts the number for its quality (messages blocked or reported); a
 * retry in seconds meets the same refusal, so the message fails instead of being throttled.
 */
export const SPAM_RATE_LIMIT = 131048;

/** Codes that say the access token or its permissions were refused (the account is failing). */
export const UNAUTHORIZED_CODES = new Set([0, 190, 10, 131005]);
/** Codes of a Graph or WhatsApp outage: the message is deferred and retried. */
export const UNAVAILABLE_CODES = new Set([1, 2, 131000, 131016, 133004]);
/** Message undeliverable: not a WhatsApp number, or its owner blocked us or cannot take it. */
export const UNDELIVERABLE = 131026;
/** Re-engagement message: free text more than 24 hours after the customer last wrote. */
export const OUTSIDE_WINDOW = 131047;
/** The person chose to stop marketing messages from this business. */
export const MARKETING_OPT_OUT = 131050;
/** Invalid parameter / parameter value not valid: an invalid number when the detail names `to`. */
export const INVALID_PARAMETER_CODES = new Set([100, 131009]);
export const INVALID_TO = /\bparam(?:eter)?\s+['"]?to\b|recipient phone number/i;

/**
 * A `failed` status notification's `errors[].code` → ours. Only an undeliverable address bounces;
 * every other failure leaves the address as it is.
 *
 * | Meta status | errors[].code | Meta's title                               | Ours      | Effect  |
 * |-------------|---------------|--------------------------------------------|-----------|---------|
 * | sent        |               | in transit within WhatsApp                 | sent      |         |
 * | delivered   |               | on the person's device                     | delivered |         |
 * | read        |               | opened (read receipts on)                  | read      |         |
 * | played      |               | a voice message played                     | read      |         |
 * | failed      | 131026        | Message undeliverable (not on WhatsApp,    | bounced   | blocked |
 * |             |               | blocked us, outdated app or terms)         |           |         |
 * | failed      | 131047        | Re-engagement message (window closed)      | failed    |         |
 * | failed      | 131049, 131050| Meta chose not to deliver / marketing stop | failed    |         |
 * | failed      | 130429, 131048, 131056 rate limits                         | failed    |         |
 * | failed      | any other     |                                            | failed    |         |
 * | deleted, warning, unknown | | about the person's messages or a catalog  | (ignored) |         |
 */
export const STATUS_MAP: Record<string, StatusUpdate['status'] | 'by-code'> = {
  sent: 'sent',
  delivered: 'delivered',
  read: 'read',
  played: 'read',
  failed: 'by-code',
};
