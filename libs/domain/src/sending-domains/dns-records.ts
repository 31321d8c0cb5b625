// The DNS records a sending domain publishes (§13) and the check of each against the platform's
// resolver: DKIM and the return path are required, SPF and DMARC are reported.
import type { DnsResolver } from '../dns/resolver';
import type { DnsRecordPurpose } from './sending-domain.entity';

export interface DnsRecordSpec {
  purpose: DnsRecordPurpose;
  type: 'TXT' | 'CNAME';
  /** Fully qualified, without the trailing dot. */
  name: string;
  value: string;
  required: boolean;
}

/** What a check found: the record matches, it is absent or different, or DNS did not answer. */
export type CheckResult = 'verified' | 'failed' | 'unknown';

export interface PlatformHosts {
  bounceDomain: string;
  spfInclude: string;
}

export type RecordResolver = Pick<DnsResolver, 'resolveTxt' | 'resolveCname'>;

/** The records to publish for a domain, in the order a user is shown them. */
export function recordsToPublish(
  domain: { name: string; dkimSelector: string; dkimPublicKey: string },
  hosts: PlatformHosts,
): DnsRecordSpec[] {
  return [
    {
      purpose: 'dkim',
      type: 'TXT',
      name: `${domain.dkimSelector}._domainkey.${domain.name}`,
      value: `v=DKIM1; k=rsa; p=${domain.dkimPublicKey}`,
      required: true,
    },
    {
      purpose: 'return-path',
      type: 'CNAME',
      name: `bounces.${domain.name}`,
      value: hosts.bounceDomain,
      required: true,
    },
    {
      purpose: 'spf',
      type: 'TXT',
      name: domain.name,
      value: `v=spf1 include:${hosts.spfInclude} ~all`,
      required: false,
    },
    {
      purpose: 'dmarc',
      type: 'TXT',
      name: `_dmarc.${domain.name}`,
      value: 'v=DMARC1; p=none',
      required: false,
    },
  ];
}

const squeeze = (s: string) => s.replace(/\s+/g, '');

/** `k=v; k=v` tags with white-space removed, names lower-cased (RFC 6376 §3.2). */
function tags(record: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of record.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0) out.set(squeeze(part.slice(0, eq)).toLowerCase(), squeeze(part.slice(eq + 1)));
  }
  return out;
}

/**
 * A DKIM record carrying our key: the same tags as the published value once white-space is
 * ignored (`v` and `k` may be left out, as RFC 6376 defaults them to DKIM1 and rsa).
 */
export function dkimMatches(record: string, publicKey: string): boolean {
  const t = tags(record);
  return (
    (t.get('v') ?? 'DKIM1') === 'DKIM1' &&
    (t.get('k') ?? 'rsa').toLowerCase() === 'rsa' &&
    t.get('p') === squeeze(publicKey)
  );
}

/** An SPF record (the name's only `v=spf1` one) that includes the platform's SPF name. */
export function spfMatches(records: string[], include: string): boolean {
  const spf = records.filter((r) => /^v=spf1(\s|$)/i.test(r.trim()));
  if (spf.length !== 1) return false;
  const terms = spf[0].trim().toLowerCase().split(/\s+/);
  return terms.some((t) => t.replace(/^[+?~]/, '') === `include:${include.toLowerCase()}`);
}

/** Any DMARC record: the policy is the owner's choice. */
export function dmarcMatches(records: string[]): boolean {
  return records.some((r) => /^v\s*=\s*DMARC1\s*(;|$)/.test(r.trim()));
}

export function cnameMatches(targets: string[], expected: string): boolean {
  const want = expected.toLowerCase().replace(/\.$/, '');
  return targets.some((t) => t.toLowerCase().replace(/\.$/, '') === want);
}

/** No such name, or the name without records of that type: a definite answer that it is absent. */
const ABSENT = new Set(['ENOTFOUND', 'ENODATA']);

/** Looks one record up and compares it. Never throws: a resolver failure is `unknown`. */
export async function checkRecord(
  dns: RecordResolver,
  spec: DnsRecordSpec,
  expected: { publicKey: string; spfInclude: string },
): Promise<CheckResult> {
  try {
    if (spec.type === 'CNAME') {
      return cnameMatches(await dns.resolveCname(spec.name), spec.value) ? 'verified' : 'failed';
    }
    const records = (await dns.resolveTxt(spec.name)).map((chunks) => chunks.join(''));
    let ok: boolean;
    if (spec.purpose === 'dkim') ok = records.some((r) => dkimMatches(r, expected.publicKey));
    else if (spec.purpose === 'spf') ok = spfMatches(records, expected.spfInclude);
    else ok = dmarcMatches(records);
    return ok ? 'verified' : 'failed';
  } catch (err) {
    return ABSENT.has((err as NodeJS.ErrnoException).code ?? '') ? 'failed' : 'unknown';
  }
}
