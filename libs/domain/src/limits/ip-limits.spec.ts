// Per-IP limit keys: IPv4 by address, IPv6 by /64, IPv4-mapped as IPv4.
import { ipLimitKey } from './ip-limits';

describe(ipLimitKey.name, () => {
  it('keeps an IPv4 address per address', () => {
    expect(ipLimitKey('198.51.100.7')).toBe('198.51.100.7');
    expect(ipLimitKey('198.51.100.8')).toBe('198.51.100.8');
  });

  it('counts an IPv4-mapped IPv6 address as its IPv4 address, in either notation', () => {
    expect(ipLimitKey('::ffff:198.51.100.7')).toBe('198.51.100.7');
    expect(ipLimitKey('::ffff:c633:6407')).toBe('198.51.100.7');
  });

  it('aggregates every address of one IPv6 /64, however it is written', () => {
    const key = ipLimitKey('2001:db8:1:2::1');
    expect(key).toBe('2001:db8:1:2::/64');
    for (const same of [
      '2001:db8:1:2::2',
      '2001:db8:1:2:ffff:ffff:ffff:ffff',
      '2001:0DB8:0001:0002:0:0:0:9',
      '2001:db8:1:2::1%eth0',
    ]) {
      expect(ipLimitKey(same)).toBe(key);
    }
  });

  it('keeps different /64 networks apart', () => {
    expect(ipLimitKey('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
    expect(ipLimitKey('2001:db8:1:2::1')).not.toBe(ipLimitKey('2001:db8:1:3::1'));
    expect(ipLimitKey('::1')).toBe('::/64');
  });

  it('keeps what is not an address as given, and a missing one as unknown', () => {
    expect(ipLimitKey('not-an-ip')).toBe('not-an-ip');
    expect(ipLimitKey(undefined)).toBe('unknown');
    expect(ipLimitKey('')).toBe('unknown');
  });
});
