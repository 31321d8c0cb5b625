// The one DNS resolver of the platform (§13): every lookup (MX for delivery, webhook targets,
// sending-domain checks) goes to DNS_SERVERS when set, else to the system's resolver.
import { Inject, Injectable } from '@nestjs/common';
import { lookup as systemLookup, promises as dns } from 'node:dns';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Seconds and tries of one query to DNS_SERVERS, as a mail server's resolver would use them. */
const QUERY_TIMEOUT_MS = 5000;
const QUERY_TRIES = 2;

@Injectable()
export class DnsResolver {
  private readonly resolver: dns.Resolver;
  /** DNS_SERVERS is set: names are resolved there only (not from the hosts file either). */
  private readonly custom: boolean;

  constructor(@Inject(APP_CONFIG) config: Pick<AppConfig, 'dnsServers'>) {
    this.custom = config.dnsServers.length > 0;
    this.resolver = this.custom
      ? new dns.Resolver({ timeout: QUERY_TIMEOUT_MS, tries: QUERY_TRIES })
      : new dns.Resolver();
    if (this.custom) this.resolver.setServers(config.dnsServers);
  }

  /** MX records of a domain (errors carry the resolver's code: ENODATA, ENOTFOUND...). */
  resolveMx(domain: string): Promise<{ exchange: string; priority: number }[]> {
    return this.resolver.resolveMx(domain);
  }

  /** TXT records of a name, each as its character-strings (errors as resolveMx's). */
  resolveTxt(name: string): Promise<string[][]> {
    return this.resolver.resolveTxt(name);
  }

  /** CNAME targets of a name (errors as resolveMx's). */
  resolveCname(name: string): Promise<string[]> {
    return this.resolver.resolveCname(name);
  }

  /** Every IPv4 and IPv6 address of a host name, in the resolver's order. */
  async lookup(hostname: string): Promise<ResolvedAddress[]> {
    if (!this.custom) {
      return new Promise((resolve, reject) =>
        systemLookup(hostname, { all: true, verbatim: true }, (err, addresses) =>
          err ? reject(err) : resolve(addresses),
        ),
      );
    }
    const [v4, v6] = await Promise.allSettled([
      this.resolver.resolve4(hostname),
      this.resolver.resolve6(hostname),
    ]);
    const out: ResolvedAddress[] = [];
    if (v4.status === 'fulfilled') for (const a of v4.value) out.push({ address: a, family: 4 });
    if (v6.status === 'fulfilled') for (const a of v6.value) out.push({ address: a, family: 6 });
    if (out.length) return out;
    // Neither family answered: the more telling error (a name that does not exist over one
    // that exists without addresses of that family).
    const errors = [v4, v6].flatMap((r) => (r.status === 'rejected' ? [r.reason as Error] : []));
    throw (
      errors.find((e) => (e as NodeJS.ErrnoException).code !== 'ENODATA') ??
      errors[0] ??
      Object.assign(new Error(`No address for ${hostname}`), { code: 'ENODATA' })
    );
  }
}
