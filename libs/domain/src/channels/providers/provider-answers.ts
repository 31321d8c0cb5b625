// What every adapter does with a provider's answer and an account's fields: a setting read as a
// string, a JSON body read as an object, a Retry-After read as milliseconds, and the account's
// secrets cut out of any text that may reach a log line or a message.
import type { ProviderAccount } from '../provider-adapter';

/** A 429 without a usable Retry-After is retried after this long, and never sooner. */
export const DEFAULT_RETRY_AFTER_MS = 1000;

/** A non-empty string setting of the account, or undefined. */
export function stringSetting(account: ProviderAccount, name: string): string | undefined {
  const v = account.settings[name];
  return typeof v === 'string' && v ? v : undefined;
}

/** A JSON object body, or undefined (not JSON, or not an object). */
export function parseJson(body: Buffer): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(body.toString('utf8'));
    return v && typeof v === 'object' && !Array.isArray(v)
      ? (v as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Retry-After in seconds or as an HTTP date, at least DEFAULT_RETRY_AFTER_MS; `fallback` when it
 * is missing or unreadable.
 */
export function retryAfterMs(
  header: string | undefined,
  fallback = DEFAULT_RETRY_AFTER_MS,
): number {
  if (!header) return fallback;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) {
    return Math.max(seconds * 1000, DEFAULT_RETRY_AFTER_MS);
  }
  const at = Date.parse(header);
  return Number.isNaN(at) ? fallback : Math.max(at - Date.now(), DEFAULT_RETRY_AFTER_MS);
}

/** `text` with every one of `secrets` (those of 8 characters or more) cut out. */
export function scrub(text: string, secrets: (string | undefined)[]): string {
  let out = text;
  for (const s of secrets) if (s && s.length >= 8) out = out.split(s).join('[redacted]');
  return out;
}
