// Domain names as sending domains hold them (§13): lower-case ASCII, internationalised names in
// their IDNA (punycode) form, and the suffix walk that matches a From address to its domain.
import { domainToASCII } from 'node:url';

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/**
 * The name in the form it is stored and signed with (`Bücher.Example.` → `xn--bcher-kva.example`),
 * or null when it is not a domain a message can be sent from: at least two labels, letters,
 * digits and inner hyphens only, a top-level label that is not all digits, 253 characters at most.
 */
export function normaliseDomainName(input: unknown): string | null {
  if (typeof input !== 'string') return null;
  const trimmed = input.trim().replace(/\.$/, '');
  if (!trimmed || trimmed.length > 253 || /[\s/@:]/.test(trimmed)) return null;
  const ascii = domainToASCII(trimmed.toLowerCase());
  if (!ascii || ascii.length > 253) return null;
  const labels = ascii.split('.');
  if (labels.length < 2 || !labels.every((l) => LABEL.test(l))) return null;
  if (/^\d+$/.test(labels[labels.length - 1])) return null;
  return ascii;
}

/** The domain of an address, normalised; null when it has none that could be a sending domain. */
export function addressDomain(email: string): string | null {
  const at = email.lastIndexOf('@');
  return at < 0 ? null : normaliseDomainName(email.slice(at + 1));
}

/** The name itself, then each parent with at least two labels: `a.b.example.com`, `b.example.com`, `example.com`. */
export function selfAndParents(domain: string): string[] {
  const labels = domain.split('.');
  const out: string[] = [];
  for (let i = 0; i <= labels.length - 2; i++) out.push(labels.slice(i).join('.'));
  return out;
}
