// The addresses the inbound port takes mail for (§14, §16): `bounces+<token>@`,
// `unsubscribe+<token>@` and `fbl@`, plus `postmaster@` and `abuse@` (RFC 5321 §4.5.1, RFC 2142),
// kept for the operator, at one of our return hosts (ReturnPath decides which hosts those are).
// Anything else is refused: the port is never a relay.

export type InboundKind = 'bounce' | 'unsubscribe' | 'feedback' | 'operator';

export interface InboundAddress {
  kind: InboundKind;
  /** The VERP token (bounce) or the unsubscribe token; null for the feedback and role boxes. */
  token: string | null;
  /** Lower case, without a trailing dot. */
  host: string;
}

/** A token as an address carries it: dot-atom text without the separators we use. */
const TOKEN = /^[A-Za-z0-9_=.-]{1,200}$/;

/** What a recipient address is to the inbound port, or null when it is none of its boxes. */
export function parseInboundAddress(address: string): InboundAddress | null {
  const at = address.lastIndexOf('@');
  if (at <= 0) return null;
  const host = address
    .slice(at + 1)
    .toLowerCase()
    .replace(/\.$/, '');
  if (!host) return null;
  const local = address.slice(0, at);
  const plus = local.indexOf('+');
  const box = (plus < 0 ? local : local.slice(0, plus)).toLowerCase();
  const token = plus < 0 ? null : local.slice(plus + 1);
  if (box === 'fbl' && token === null) return { kind: 'feedback', token: null, host };
  if ((box === 'postmaster' || box === 'abuse') && token === null) {
    return { kind: 'operator', token: null, host };
  }
  if (token === null || !TOKEN.test(token)) return null;
  if (box === 'bounces') return { kind: 'bounce', token, host };
  if (box === 'unsubscribe') return { kind: 'unsubscribe', token, host };
  return null;
}
