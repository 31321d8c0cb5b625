// Which hosts a webhook may target (§10 Security): loopback, private, link-local, CGNAT, multicast,
// unspecified and other reserved addresses are refused unless WEBHOOK_ALLOW_PRIVATE_TARGETS=true.
// The dispatcher resolves once per connection and connects to the very address checked here, so a
// DNS answer that changes between the check and the connect (rebinding) cannot reach a refused one.
import { lookup as dnsLookup } from 'node:dns';
import { BlockList, isIP } from 'node:net';

/** A target refused by the guard; the dispatcher records it as a failed attempt. */
export class TargetNotAllowedError extends Error {
  constructor(
    readonly address: string,
    readonly reason: string,
  ) {
    super(`Target address not allowed: ${address} is ${reason}`);
  }
}

const RANGES: [string, number, 'ipv4' | 'ipv6', string][] = [
  ['0.0.0.0', 8, 'ipv4', 'an unspecified address'],
  ['10.0.0.0', 8, 'ipv4', 'a private address'],
  ['100.64.0.0', 10, 'ipv4', 'a CGNAT address'],
  ['127.0.0.0', 8, 'ipv4', 'a loopback address'],
  ['169.254.0.0', 16, 'ipv4', 'a link-local address'],
  ['172.16.0.0', 12, 'ipv4', 'a private address'],
  ['192.0.0.0', 24, 'ipv4', 'a reserved address'],
  ['192.0.2.0', 24, 'ipv4', 'a reserved address'],
  ['192.88.99.0', 24, 'ipv4', 'a reserved address'],
  ['192.168.0.0', 16, 'ipv4', 'a private address'],
  ['198.18.0.0', 15, 'ipv4', 'a reserved address'],
  ['198.51.100.0', 24, 'ipv4', 'a reserved address'],
  ['203.0.113.0', 24, 'ipv4', 'a reserved address'],
  ['224.0.0.0', 4, 'ipv4', 'a multicast address'],
  ['240.0.0.0', 4, 'ipv4', 'a reserved address'],
  ['::', 128, 'ipv6', 'an unspecified address'],
  ['::1', 128, 'ipv6', 'a loopback address'],
  ['::', 96, 'ipv6', 'a reserved address'], // IPv4-compatible (deprecated)
  ['100::', 64, 'ipv6', 'a reserved address'], // discard prefix
  ['2001:db8::', 32, 'ipv6', 'a reserved address'], // documentation
  ['fc00::', 7, 'ipv6', 'a private address'], // unique local
  ['fe80::', 10, 'ipv6', 'a link-local address'],
  ['fec0::', 10, 'ipv6', 'a private address'], // site-local (deprecated)
  ['ff00::', 8, 'ipv6', 'a multicast address'],
];

const lists = RANGES.map(([net, prefix, type, reason]) => {
  const list = new BlockList();
  list.addSubnet(net, prefix, type);
  return { list, type, reason };
});

/** The 16 bytes of an IPv6 address (already validated by isIP). */
function ipv6Bytes(address: string): number[] {
  let text = address.split('%')[0];
  const tail: number[] = [];
  const lastColon = text.lastIndexOf(':');
  if (text.slice(lastColon + 1).includes('.')) {
    tail.push(
      ...text
        .slice(lastColon + 1)
        .split('.')
        .map(Number),
    );
    text = text.slice(0, lastColon + 1) + '0:0';
  }
  const [head, rest] = text.includes('::') ? text.split('::') : [text, undefined];
  const h = head ? head.split(':') : [];
  const r = rest ? rest.split(':') : [];
  const groups =
    rest === undefined ? h : [...h, ...new Array(8 - h.length - r.length).fill('0'), ...r];
  const bytes = groups.flatMap((g) => {
    const n = parseInt(g || '0', 16);
    return [n >> 8, n & 0xff];
  });
  if (tail.length === 4) bytes.splice(12, 4, ...tail);
  return bytes;
}

/** The IPv4 address an IPv6 address carries (mapped, NAT64, 6to4), if any. */
function embeddedIpv4(address: string): string | null {
  const b = ipv6Bytes(address);
  const zeros = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
  if (zeros(0, 10) && b[10] === 0xff && b[11] === 0xff) return b.slice(12).join('.'); // ::ffff:0:0/96
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zeros(4, 12)) {
    return b.slice(12).join('.'); // 64:ff9b::/96 NAT64
  }
  if (b[0] === 0x20 && b[1] === 0x02) return b.slice(2, 6).join('.'); // 2002::/16 6to4
  return null;
}

/** Why an IP address may not be targeted, or null when it is a public unicast address. */
export function blockedAddressReason(scoped: string): string | null {
  const address = scoped.split('%')[0];
  const family = isIP(address);
  if (family === 0) return 'not an IP address';
  if (family === 6) {
    const v4 = embeddedIpv4(address);
    if (v4) return blockedAddressReason(v4);
  }
  const type = family === 4 ? 'ipv4' : 'ipv6';
  for (const { list, type: t, reason } of lists) {
    if (t === type && list.check(address, type)) return reason;
  }
  return null;
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
