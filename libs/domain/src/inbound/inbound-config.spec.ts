import { ConfigError, loadConfig } from '../config/app-config';

const KEY = Buffer.alloc(32, 7).toString('base64');

describe('inbound configuration', () => {
  it('listens on 2526 and takes bounces at bounces.<public host> by default', () => {
    const c = loadConfig({ ENCRYPTION_KEY: KEY });
    expect(c.inboundSmtpPort).toBe(2526);
    expect(c.sendingDomains.bounceDomain).toBe('bounces.localhost');
    expect(c.inboundPollIntervalMs).toBe(10_000);
    expect(
      loadConfig({ ENCRYPTION_KEY: KEY, PUBLIC_BASE_URL: 'https://mail.example.com' })
        .sendingDomains.bounceDomain,
    ).toBe('bounces.mail.example.com');
    expect(
      loadConfig({ ENCRYPTION_KEY: KEY, PUBLIC_BASE_URL: 'http://[::1]:3000' }).sendingDomains
        .bounceDomain,
    ).toBe('bounces.localhost');
  });

  it('reads BOUNCE_DOMAIN lower-cased and refuses what is not a host name', () => {
    expect(
      loadConfig({ ENCRYPTION_KEY: KEY, BOUNCE_DOMAIN: 'Bounces.Example.' }).sendingDomains
        .bounceDomain,
    ).toBe('bounces.example');
    for (const bad of ['a b.example', '-x.example', 'x..example', 'x@example', 'a'.repeat(64)]) {
      expect(() => loadConfig({ ENCRYPTION_KEY: KEY, BOUNCE_DOMAIN: bad })).toThrow(ConfigError);
    }
    expect(() => loadConfig({ ENCRYPTION_KEY: KEY, INBOUND_SMTP_PORT: '70000' })).toThrow(
      ConfigError,
    );
  });
});
