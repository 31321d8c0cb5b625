// Resolving a host the platform connects to on a tenant's behalf (webhook targets §10, MX hosts
// §16): the name is resolved once, every address of the answer is checked (address-ranges.ts)
// unless private targets are allowed, and the caller connects to the very address returned, so a
// DNS answer that changes between the check and the connect (rebinding) cannot reach a refused one.
import { isIP } from 'node:net';
import { blockedAddressReason } from './address-ranges';
import type { ResolvedAddress } from './resolver';

/** A target refused: webhooks record it as a failed attempt, delivery as a failed recipient. */
export class TargetNotAllowedError extends Error {
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

/** A name's addresses: DnsResolver#lookup, the one resolver of the platform. */
export type Lookup = (hostname: string) => Promise<ResolvedAddress[]>;

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
  lookup: Lookup,
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
