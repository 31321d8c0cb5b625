// Which IP addresses the platform refuses to connect to on a tenant's behalf (§10, §16): webhook
// targets and MX hosts. Checked against the IANA IPv4 and IPv6 special-purpose address registries:
// every range that is not globally reachable is refused; an IPv6 address that carries an IPv4
// address (mapped, NAT64, 6to4) is judged as that IPv4 address.
import ipaddr from 'ipaddr.js';
import { BlockList, isIP } from 'node:net';

type Range = [network: string, prefix: number, reason: string];

const IPV4: Range[] = [
  ['0.0.0.0', 8, 'an unspecified address'], // "this network"
  ['10.0.0.0', 8, 'a private address'],
  ['100.64.0.0', 10, 'a CGNAT address'], // shared address space
  ['127.0.0.0', 8, 'a loopback address'],
  ['169.254.0.0', 16, 'a link-local address'],
  ['172.16.0.0', 12, 'a private address'],
  ['192.0.0.0', 24, 'a reserved address'], // IETF protocol assignments
  ['192.0.2.0', 24, 'a reserved address'], // documentation (TEST-NET-1)
  ['192.88.99.0', 24, 'a reserved address'], // 6to4 relay anycast (deprecated)
  ['192.168.0.0', 16, 'a private address'],
  ['198.18.0.0', 15, 'a reserved address'], // benchmarking
  ['198.51.100.0', 24, 'a reserved address'], // documentation (TEST-NET-2)
  ['203.0.113.0', 24, 'a reserved address'], // documentation (TEST-NET-3)
  ['224.0.0.0', 4, 'a multicast address'],
  ['240.0.0.0', 4, 'a reserved address'], // reserved, and 255.255.255.255 broadcast
];

/** Checked in order: the first match names the reason. */
const IPV6: Range[] = [
  ['::', 128, 'an unspecified address'],
  ['::1', 128, 'a loopback address'],
  ['fe80::', 10, 'a link-local address'],
  ['fc00::', 7, 'a private address'], // unique local
  ['fec0::', 10, 'a private address'], // site-local (deprecated)
  ['ff00::', 8, 'a multicast address'],
  ['2001::', 23, 'a reserved address'], // IETF protocol assignments: Teredo 2001::/32, ORCHID, benchmarking 2001:2::/48
  ['2001:db8::', 32, 'a reserved address'], // documentation
  ['3fff::', 20, 'a reserved address'], // documentation
  // Outside 2000::/3, the only global unicast space IANA allocates: IPv4-compatible ::/96,
  // 64:ff9b:1::/48 (local-use translation), discard 100::/64, dummy 100:0:0:1::/64, segment
  // routing 5f00::/16 and every unassigned block.
  ['::', 3, 'a reserved address'],
  ['4000::', 2, 'a reserved address'],
  ['8000::', 1, 'a reserved address'],
];

function compile(ranges: Range[], family: 'ipv4' | 'ipv6') {
  return ranges.map(([network, prefix, reason]) => {
    const list = new BlockList();
    list.addSubnet(network, prefix, family);
    return { list, reason };
  });
}

const V4 = compile(IPV4, 'ipv4');
const V6 = compile(IPV6, 'ipv6');

/** The IPv4 address an IPv6 address carries in a translation prefix, if any. */
function embeddedIpv4(address: string): string | null {
  const b = ipaddr.IPv6.parse(address).toByteArray();
  const zeros = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
  const v4 = (at: number) => b.slice(at, at + 4).join('.');
  if (zeros(0, 10) && b[10] === 0xff && b[11] === 0xff) return v4(12); // ::ffff:0:0/96 mapped
  if (b[0] === 0 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zeros(4, 12)) return v4(12); // 64:ff9b::/96 NAT64
  if (b[0] === 0x20 && b[1] === 0x02) return v4(2); // 2002::/16 6to4
  return null;
}

/**
 * Why the platform may not connect to this IP address (`a loopback address`, `a private
 * address`...), or null for a globally reachable unicast address. A zone (`fe80::1%eth0`) is
 * ignored; anything that is not an IP address is refused.
 */
export function blockedAddressReason(scoped: string): string | null {
  const address = scoped.split('%')[0];
  const family = isIP(address);
  if (family === 0) return 'not an IP address';
  if (family === 4) return V4.find((r) => r.list.check(address, 'ipv4'))?.reason ?? null;
  const v4 = embeddedIpv4(address);
  if (v4) return blockedAddressReason(v4);
  return V6.find((r) => r.list.check(address, 'ipv6'))?.reason ?? null;
}
