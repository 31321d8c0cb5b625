// The test DNS server answers Node's resolver (the platform's DnsResolver) over UDP and TCP.
import { DnsResolver } from '@app/domain';
import { promises as nodeDns } from 'node:dns';
import { startDnsServer, TestDnsServer } from '../support/dns-server';

describe('TestDnsServer', () => {
  let dns: TestDnsServer;
  let resolver: DnsResolver;

  beforeAll(async () => {
    dns = await startDnsServer();
    resolver = new DnsResolver({ dnsServers: [dns.address] });
  });
  afterAll(() => dns.stop());

  it('answers A, AAAA, MX and long TXT records, NODATA and NXDOMAIN', async () => {
    dns
      .set('example.test', [
        { type: 'MX', data: { preference: 20, exchange: 'mx2.example.test' } },
        { type: 'MX', data: { preference: 10, exchange: 'mx1.example.test' } },
        { type: 'TXT', data: 'x'.repeat(1000) + ' ' + 'y'.repeat(1000) },
      ])
      .set('mx1.example.test', [
        { type: 'A', data: '192.0.2.10' },
        { type: 'AAAA', data: '2001:db8::10' },
      ])
      .set('alias.example.test', [{ type: 'CNAME', data: 'mx1.example.test' }])
      .set('empty.example.test', []);
    expect(await resolver.resolveMx('example.test')).toEqual(
      expect.arrayContaining([
        { exchange: 'mx1.example.test', priority: 10 },
        { exchange: 'mx2.example.test', priority: 20 },
      ]),
    );
    expect(await resolver.lookup('mx1.example.test')).toEqual([
      { address: '192.0.2.10', family: 4 },
      { address: '2001:db8::10', family: 6 },
    ]);
    expect(await resolver.lookup('alias.example.test')).toEqual([
      { address: '192.0.2.10', family: 4 },
      { address: '2001:db8::10', family: 6 },
    ]);
    await expect(resolver.resolveMx('empty.example.test')).rejects.toMatchObject({
      code: 'ENODATA',
    });
    await expect(resolver.lookup('nowhere.example.test')).rejects.toMatchObject({
      code: 'ENOTFOUND',
    });
    // Over one character-string, and over what fits a UDP answer: truncated, then asked over TCP.
    const txt = new nodeDns.Resolver();
    txt.setServers([dns.address]);
    expect((await txt.resolveTxt('example.test')).map((parts) => parts.join(''))).toEqual([
      'x'.repeat(1000) + ' ' + 'y'.repeat(1000),
    ]);
    expect(dns.tcpQueries).toBeGreaterThan(0);
    expect(dns.queries).toContain('example.test MX');
  });
});
