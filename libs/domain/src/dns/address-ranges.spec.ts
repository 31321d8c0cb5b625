import { blockedAddressReason } from './address-ranges';

describe('blockedAddressReason', () => {
  // One address inside each refused range of the IANA special-purpose registries (and the
  // multicast and deprecated site-local blocks), with its first and last address where it matters.
  it.each([
    // IPv4
    ['0.0.0.0', 'an unspecified address'],
    ['0.255.255.255', 'an unspecified address'],
    ['10.0.0.1', 'a private address'],
    ['100.64.0.1', 'a CGNAT address'],
    ['100.127.255.254', 'a CGNAT address'],
    ['127.0.0.1', 'a loopback address'],
    ['127.255.0.9', 'a loopback address'],
    ['169.254.169.254', 'a link-local address'],
    ['172.16.0.1', 'a private address'],
    ['172.31.255.255', 'a private address'],
    ['192.0.0.8', 'a reserved address'],
    ['192.0.2.1', 'a reserved address'],
    ['192.88.99.1', 'a reserved address'],
    ['192.168.1.1', 'a private address'],
    ['198.18.0.1', 'a reserved address'],
    ['198.19.255.255', 'a reserved address'],
    ['198.51.100.7', 'a reserved address'],
    ['203.0.113.9', 'a reserved address'],
    ['224.0.0.251', 'a multicast address'],
    ['239.1.1.1', 'a multicast address'],
    ['240.0.0.1', 'a reserved address'],
    ['255.255.255.255', 'a reserved address'],
    // IPv6
    ['::', 'an unspecified address'],
    ['::1', 'a loopback address'],
    ['fe80::1', 'a link-local address'],
    ['fe80::1%eth0', 'a link-local address'],
    ['febf:ffff::1', 'a link-local address'],
    ['fc00::1', 'a private address'],
    ['fd12:3456::1', 'a private address'],
    ['fec0::1', 'a private address'],
    ['ff02::1', 'a multicast address'],
    ['::7f00:1', 'a reserved address'], // IPv4-compatible (deprecated)
    ['100::1', 'a reserved address'], // discard-only
    ['100:0:0:1::1', 'a reserved address'], // dummy prefix
    ['64:ff9b:1::a00:1', 'a reserved address'], // local-use IPv4/IPv6 translation
    ['64:ff9b:1:ffff::808:808', 'a reserved address'],
    ['2001::1', 'a reserved address'], // Teredo
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'a reserved address'], // Teredo, public server
    ['2001:2::1', 'a reserved address'], // benchmarking
    ['2001:10::1', 'a reserved address'], // ORCHID (deprecated)
    ['2001:db8::1', 'a reserved address'], // documentation
    ['3fff::1', 'a reserved address'], // documentation
    ['3fff:fff::1', 'a reserved address'],
    ['5f00::1', 'a reserved address'], // segment routing
    ['4000::1', 'a reserved address'], // unassigned
    ['e000::1', 'a reserved address'],
  ])('refuses %s as %s', (ip, reason) => {
    expect(blockedAddressReason(ip)).toBe(reason);
  });

  // IPv6 forms carrying an IPv4 address are judged as that address.
  it.each([
    ['::ffff:127.0.0.1', 'a loopback address'],
    ['::ffff:7f00:1', 'a loopback address'],
    ['0:0:0:0:0:ffff:7f00:1', 'a loopback address'],
    ['::ffff:a9fe:a9fe', 'a link-local address'],
    ['::ffff:10.1.2.3', 'a private address'],
    ['64:ff9b::a00:1', 'a private address'], // NAT64
    ['64:ff9b::127.0.0.1', 'a loopback address'],
    ['2002:7f00:1::', 'a loopback address'], // 6to4
    ['2002:c0a8:101::1', 'a private address'],
  ])('judges %s by its IPv4 address (%s)', (ip, reason) => {
    expect(blockedAddressReason(ip)).toBe(reason);
  });

  it.each([
    '93.184.216.34',
    '8.8.8.8',
    '1.1.1.1',
    '100.128.0.1',
    '172.32.0.1',
    '192.0.3.1',
    '198.20.0.1',
    '223.255.255.254',
    '2606:4700:4700::1111',
    '2a00:1450:4001:80b::200e',
    '2001:200::1', // just past 2001::/23
    '3fff:1000::1', // just past 3fff::/20
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
  ])('allows the public address %s', (ip) => {
    expect(blockedAddressReason(ip)).toBeNull();
  });

  it('refuses what is not an IP address', () => {
    expect(blockedAddressReason('example.com')).toBe('not an IP address');
    expect(blockedAddressReason('')).toBe('not an IP address');
  });
});
