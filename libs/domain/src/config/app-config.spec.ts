import { ConfigError, loadConfig } from './app-config';

const KEY = Buffer.alloc(32, 7).toString('base64');

describe('loadConfig', () => {
  it('applies the defaults of §2', () => {
    const c = loadConfig({ ENCRYPTION_KEY: KEY });
    expect(c.port).toBe(3000);
    expect(c.smtpPort).toBe(2525);
    expect(c.redisUrl).toBe('redis://127.0.0.1:6379');
    expect(c.databaseUrl).toBeUndefined();
    expect(c.webhookAllowPrivateTargets).toBe(false);
    expect(c.publicBaseUrl).toBe('http://localhost:3000');
    expect(c.webhookEndpointConcurrency).toBe(10);
    expect(c.deliveryAllowPrivateMx).toBe(false);
    expect(c.dnsServers).toEqual([]);
  });

  it('reads the §16 delivery settings and DNS_SERVERS as ip[:port]', () => {
    const c = loadConfig({
      ENCRYPTION_KEY: KEY,
      WEBHOOK_ENDPOINT_CONCURRENCY: '3',
      DELIVERY_ALLOW_PRIVATE_MX: 'true',
      DNS_SERVERS: '127.0.0.1:5390, ::1,[::1]:53,192.0.2.53',
    });
    expect(c.webhookEndpointConcurrency).toBe(3);
    expect(c.deliveryAllowPrivateMx).toBe(true);
    expect(c.dnsServers).toEqual(['127.0.0.1:5390', '::1', '[::1]:53', '192.0.2.53']);
    expect(c.imports.storageQuotaBytes).toBe(1024 * 1024 * 1024);
  });

  it('defaults the sending-domain settings of §13 from NODE_ENV and PUBLIC_BASE_URL', () => {
    const dev = loadConfig({ ENCRYPTION_KEY: KEY, PUBLIC_BASE_URL: 'https://Mail.Example.com/' });
    expect(dev.sendingDomains).toEqual({
      policy: 'allow',
      bounceDomain: 'bounces.mail.example.com',
      spfInclude: 'bounces.mail.example.com',
      checkIntervalMs: 60_000,
    });
    const prod = loadConfig({
      NODE_ENV: 'production',
      ENCRYPTION_KEY: KEY,
      BOUNCE_DOMAIN: 'bounces.platform.example.',
      SPF_INCLUDE: '_spf.platform.example',
    });
    expect(prod.sendingDomains).toMatchObject({
      policy: 'require',
      bounceDomain: 'bounces.platform.example',
      spfInclude: '_spf.platform.example',
    });
    const ipHost = loadConfig({ ENCRYPTION_KEY: KEY, PUBLIC_BASE_URL: 'http://[::1]:3000' });
    expect(ipHost.sendingDomains.bounceDomain).toBe('bounces.localhost');
    expect(
      loadConfig({ NODE_ENV: 'production', ENCRYPTION_KEY: KEY, SENDING_DOMAIN_POLICY: 'allow' })
        .sendingDomains.policy,
    ).toBe('allow');
  });

  it('reads IMPORT_STORAGE_QUOTA_MB in MiB', () => {
    const c = loadConfig({ ENCRYPTION_KEY: KEY, IMPORT_STORAGE_QUOTA_MB: '5' });
    expect(c.imports.storageQuotaBytes).toBe(5 * 1024 * 1024);
  });

  it.each([
    [{ PORT: 'abc' }, 'PORT'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ DATABASE_READ_URL: 'mysql://x' }, 'DATABASE_READ_URL'],
    [{ REDIS_URL: 'not a url' }, 'REDIS_URL'],
    [{ ENCRYPTION_KEY: 'c2hvcnQ=' }, 'ENCRYPTION_KEY'],
    [{ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'yes' }, 'WEBHOOK_ALLOW_PRIVATE_TARGETS'],
    [{ SMTP_TLS_CERT: '/tmp/cert.pem' }, 'SMTP_TLS_KEY'],
    [{ WEBHOOK_ENDPOINT_CONCURRENCY: '0' }, 'WEBHOOK_ENDPOINT_CONCURRENCY'],
    [{ DELIVERY_ALLOW_PRIVATE_MX: 'maybe' }, 'DELIVERY_ALLOW_PRIVATE_MX'],
    [{ DNS_SERVERS: 'dns.example' }, 'DNS_SERVERS'],
    [{ DNS_SERVERS: '127.0.0.1:0' }, 'DNS_SERVERS'],
    [{ DNS_SERVERS: '127.0.0.1:70000' }, 'DNS_SERVERS'],
    [{ DNS_SERVERS: '[127.0.0.1]:53' }, 'DNS_SERVERS'],
    [{ DNS_SERVERS: '::1:53x' }, 'DNS_SERVERS'],
    [{ IMPORT_STORAGE_QUOTA_MB: '0' }, 'IMPORT_STORAGE_QUOTA_MB'],
    [{ IMPORT_STORAGE_QUOTA_MB: '1.5' }, 'IMPORT_STORAGE_QUOTA_MB'],
    [{ SENDING_DOMAIN_POLICY: 'strict' }, 'SENDING_DOMAIN_POLICY'],
    [{ BOUNCE_DOMAIN: 'bounces_example.com' }, 'BOUNCE_DOMAIN'],
    [{ SPF_INCLUDE: 'include:spf.example.com' }, 'SPF_INCLUDE'],
    [{ BOUNCE_DOMAIN: '_bounces.example.com' }, 'BOUNCE_DOMAIN'],
  ])('refuses %j naming %s', (env, variable) => {
    expect(() => loadConfig({ ENCRYPTION_KEY: KEY, ...env } as Record<string, string>)).toThrow(
      ConfigError,
    );
    try {
      loadConfig({ ENCRYPTION_KEY: KEY, ...env } as Record<string, string>);
    } catch (e) {
      expect((e as ConfigError).variable).toBe(variable);
      expect((e as Error).message).toContain(variable);
    }
  });

  it('requires ENCRYPTION_KEY in production', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/ENCRYPTION_KEY is required/);
  });
});
