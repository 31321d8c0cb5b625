// Which URLs a webhook endpoint may have (§10): absolute http(s) URLs with a host and no
// credentials. Its host is checked like every target of the platform (dns/target.ts), at creation
// and at every attempt.

/** An absolute http(s) URL with a host and no embedded credentials, or null. */
export function parseWebhookUrl(raw: unknown): URL | null {
  if (typeof raw !== 'string' || raw.length > 2048 || raw.trim() !== raw) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (!url.hostname || url.username || url.password) return null;
  return url;
}
