// Shared set-up of the sending-domain tests: the DNS records a domain asks for, published in the
// test DNS server as a user would publish them, and mailauth checking a delivered message against
// that server as a receiving mail server would.
import { randomBytes } from 'node:crypto';
import { promises as dns } from 'node:dns';
import { authenticate } from 'mailauth';
import type { TestDnsServer } from '../support/dns-server';
import type { Client } from '../support/session';

export interface DnsRecordJson {
  purpose: 'dkim' | 'return-path' | 'spf' | 'dmarc';
  type: 'TXT' | 'CNAME';
  name: string;
  value: string;
  required: boolean;
  status: 'pending' | 'verified' | 'failed';
  lastCheckedAt: string | null;
}

export interface DomainJson {
  id: string;
  organizationId: string;
  name: string;
  status: 'pending' | 'verified' | 'failed';
  dkimSelector: string;
  dnsRecords: DnsRecordJson[];
  verifiedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export const BOUNCE_DOMAIN = 'bounces.platform.test';

/** A name no other test file uses: `<prefix>-<8 hex>.test`. */
export function uniqueDomain(prefix: string): string {
  return `${prefix}-${randomBytes(4).toString('hex')}.test`;
}

/** Publishes the domain's records (all, or those of the given purposes) in the test DNS. */
export function publish(
  server: TestDnsServer,
  domain: DomainJson,
  purposes: DnsRecordJson['purpose'][] = ['dkim', 'return-path', 'spf', 'dmarc'],
): void {
  for (const r of domain.dnsRecords) {
    if (!purposes.includes(r.purpose)) continue;
    server.set(r.name, [
      r.type === 'CNAME' ? { type: 'CNAME', data: r.value } : { type: 'TXT', data: r.value },
    ]);
  }
}

export function record(domain: DomainJson, purpose: DnsRecordJson['purpose']): DnsRecordJson {
  return domain.dnsRecords.find((r) => r.purpose === purpose)!;
}

/** Creates a domain through the API, publishes its records and verifies it. */
export async function verifiedDomain(
  http: Client,
  server: TestDnsServer,
  name: string,
): Promise<DomainJson> {
  const created = await http.post('/api/v1/user/sending-domains', { name }).expect(201);
  publish(server, created.body.data);
  const verified = await http
    .post(`/api/v1/user/sending-domains/${created.body.data.id}/verify`)
    .expect(200);
  expect(verified.body.data.status).toBe('verified');
  return verified.body.data;
}

/**
 * mailauth's verdict on a delivered message, with every lookup answered by the test DNS server:
 * the DKIM signatures and DMARC of the header From domain.
 */
export async function authenticateMessage(server: TestDnsServer, raw: string, sender: string) {
  const resolver = new dns.Resolver();
  resolver.setServers([server.address]);
  return authenticate(raw, {
    sender,
    ip: '127.0.0.1',
    helo: 'localhost',
    mta: 'sink.test',
    disableArc: true,
    disableBimi: true,
    resolver: (name: string, rr: string) => resolver.resolve(name, rr) as never,
  });
}
