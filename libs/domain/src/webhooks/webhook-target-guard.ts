// Which hosts a webhook may target (§10 Security): addresses that are not globally reachable
// (dns/address-ranges.ts) are refused unless WEBHOOK_ALLOW_PRIVATE_TARGETS=true.
// The dispatcher resolves once per connection and connects to the very address checked here, so a
// DNS answer that changes between the check and the connect (rebinding) cannot reach a refused one.
import { lookup as dnsLookup } from 'node:dns';
import { isIP } from 'node:net';
import { blockedAddressReason } from '../dns/address-ranges';

/** A target refused by the guard; the dispatcher records it as a failed attempt. */
export class TargetNotAllowedError extends Error {
  readonly code = 'E_WEBHOOK_TARGET_NOT_ALLOWED';
  constructor(
    readonly address: string,
    readonly reason: string,
  ) {
    super(`Target address not allowed: ${address} is ${reason}`);
  }
}

export interface ResolvedTarget {
  address: string;
  family: 4 | 6;
}

export type Lookup = (hostname: string) => Promise<{ address: string; family: number }[]>;

export const systemLookup: Lookup = (hostname) =>
  new Promise((resolve, reject) =>
    dnsLookup(hostname, { all: true, verbatim: true }, (err, addresses) =>
      err ? reject(err) : resolve(addresses),
    ),
  );

/** `[::1]` (URL form) → `::1`. */
export function bareHost(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

/** `localhost` and `*.localhost` mean loopback (RFC 6761), whatever DNS answers or fails to. */
function isLocalhostName(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

/**
 * Resolves a hostname once and returns the address to connect to. Every address of the answer
 * must be allowed: an answer mixing public and private addresses is refused as a whole.
 */
export async function resolveTarget(
  hostname: string,
  allowPrivate: boolean,
  lookup: Lookup = systemLookup,
): Promise<ResolvedTarget> {
  const host = bareHost(hostname);
  const literal = isIP(host);
  const localName = !allowPrivate && !literal && isLocalhostName(host);
  let answers: { address: string; family: number }[];
  try {
    answers = literal ? [{ address: host, family: literal }] : await lookup(host);
  } catch (err) {
    if (localName) throw new TargetNotAllowedError(host, 'a loopback address');
    throw err;
  }
  if (!answers.length) {
    throw Object.assign(new Error(`No address for ${host}`), { code: 'ENOTFOUND' });
  }
  if (!allowPrivate) {
    for (const a of answers) {
      const reason = blockedAddressReason(a.address);
      if (reason) throw new TargetNotAllowedError(a.address, reason);
    }
    if (localName) throw new TargetNotAllowedError(host, 'a loopback address');
  }
  // One address, like a client without happy eyeballs: IPv4 first, as most receivers listen on it.
  const chosen = answers.find((a) => a.family === 4) ?? answers[0];
  return { address: chosen.address, family: chosen.family === 6 ? 6 : 4 };
}

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
