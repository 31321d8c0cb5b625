import {
  blockedAddressReason,
  parseWebhookUrl,
  resolveTarget,
  TargetNotAllowedError,
} from './webhook-target-guard';

describe('webhook target guard', () => {
  it.each([
    ['127.0.0.1', 'a loopback address'],
    ['127.255.0.9', 'a loopback address'],
    ['10.0.0.1', 'a private address'],
    ['172.31.255.255', 'a private address'],
    ['192.168.1.1', 'a private address'],
    ['169.254.169.254', 'a link-local address'],
    ['100.64.0.1', 'a CGNAT address'],
    ['100.127.255.254', 'a CGNAT address'],
    ['224.0.0.251', 'a multicast address'],
    ['239.1.1.1', 'a multicast address'],
    ['0.0.0.0', 'an unspecified address'],
    ['255.255.255.255', 'a reserved address'],
    ['::', 'an unspecified address'],
    ['::1', 'a loopback address'],
    ['fe80::1', 'a link-local address'],
    ['fe80::1%eth0', 'a link-local address'],
    ['fc00::1', 'a private address'],
    ['fd12:3456::1', 'a private address'],
    ['ff02::1', 'a multicast address'],
    ['::ffff:127.0.0.1', 'a loopback address'],
    ['::ffff:7f00:1', 'a loopback address'],
    ['::ffff:a9fe:a9fe', 'a link-local address'],
    ['::ffff:10.1.2.3', 'a private address'],
    ['64:ff9b::a00:1', 'a private address'],
    ['2002:7f00:1::', 'a loopback address'],
    ['::7f00:1', 'a reserved address'],
  ])('refuses %s as %s', (ip, reason) => {
    expect(blockedAddressReason(ip)).toBe(reason);
  });

  it.each([
    '93.184.216.34',
    '8.8.8.8',
    '100.128.0.1',
    '172.32.0.1',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
  ])('allows the public address %s', (ip) => {
    expect(blockedAddressReason(ip)).toBeNull();
  });

  it('refuses a name when any of its addresses is private, and allows all when switched on', async () => {
    const lookup = async () => [
      { address: '93.184.216.34', family: 4 },
      { address: '10.0.0.7', family: 4 },
    ];
    await expect(resolveTarget('mixed.example', false, lookup)).rejects.toBeInstanceOf(
      TargetNotAllowedError,
    );
    await expect(resolveTarget('mixed.example', true, lookup)).resolves.toEqual({
      address: '93.184.216.34',
      family: 4,
    });
  });

  it('connects to the checked address of the answer', async () => {
    const lookup = async () => [{ address: '2606:4700:4700::1111', family: 6 }];
    await expect(resolveTarget('v6.example', false, lookup)).resolves.toEqual({
      address: '2606:4700:4700::1111',
      family: 6,
    });
  });

  it('treats localhost names as loopback whatever DNS says, and checks literals without DNS', async () => {
    const lookup = jest.fn(async () => [{ address: '93.184.216.34', family: 4 }]);
    await expect(resolveTarget('api.localhost', false, lookup)).rejects.toThrow(
      'Target address not allowed: api.localhost is a loopback address',
    );
    const failing = async () => {
      throw Object.assign(new Error('nx'), { code: 'ENOTFOUND' });
    };
    await expect(resolveTarget('localhost.', false, failing)).rejects.toBeInstanceOf(
      TargetNotAllowedError,
    );
    await expect(resolveTarget('nowhere.example', false, failing)).rejects.toMatchObject({
      code: 'ENOTFOUND',
    });
    lookup.mockClear();
    await expect(resolveTarget('[::1]', false, lookup)).rejects.toThrow(
      '::1 is a loopback address',
    );
    expect(lookup).not.toHaveBeenCalled();
  });

  it('parses only absolute http(s) URLs with a host and no credentials', () => {
    expect(parseWebhookUrl('https://example.com/hook?x=1')?.hostname).toBe('example.com');
    expect(parseWebhookUrl('http://[::1]:8080/')?.hostname).toBe('[::1]');
    for (const bad of [
      'example.com',
      'ftp://example.com',
      'http://',
      'https://a:b@example.com',
      ' https://example.com',
      42,
      null,
    ]) {
      expect(parseWebhookUrl(bad)).toBeNull();
    }
  });
});
