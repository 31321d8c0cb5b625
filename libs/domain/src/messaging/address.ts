// Email addresses as the send API accepts them (§8): `a@b.c`, `Name <a@b.c>` or {email, name}.
import { isEmail } from 'class-validator';

export interface Mailbox {
  email: string;
  name?: string;
}

const NAMED = /^\s*(?:"((?:[^"\\\r\n]|\\.)*)"|([^<>"\r\n]*?))\s*<([^<>\s]+)>\s*$/;
const CONTROL = /[\r\n\0]/;
const MAX_MAILBOX_LENGTH = 998;

/** An unpaired UTF-16 surrogate: not a character, and validator's isEmail throws on it. */
const LONE_SURROGATE = /\p{Cs}/u;

export function isValidEmail(email: string): boolean {
  return (
    email.length <= 254 &&
    !LONE_SURROGATE.test(email) &&
    isEmail(email, { allow_utf8_local_part: true, require_tld: true })
  );
}

/**
 * Parses one mailbox, or null when it is not one. Names and addresses never carry CR, LF or NUL
 * (header injection).
 */
export function parseMailbox(value: unknown): Mailbox | null {
  if (typeof value === 'string') {
    // Bounded before any regular expression runs (a header line is at most 998 characters).
    if (value.length > MAX_MAILBOX_LENGTH || CONTROL.test(value)) return null;
    const named = NAMED.exec(value);
    if (named) {
      const name = (named[1] !== undefined ? named[1].replace(/\\(.)/g, '$1') : named[2]).trim();
      const email = named[3];
      if (!isValidEmail(email)) return null;
      return name ? { email, name } : { email };
    }
    const email = value.trim();
    return isValidEmail(email) ? { email } : null;
  }
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const o = value as Record<string, unknown>;
    if (Object.keys(o).some((k) => k !== 'email' && k !== 'name')) return null;
    if (typeof o.email !== 'string' || CONTROL.test(o.email) || !isValidEmail(o.email.trim())) {
      return null;
    }
    if (
      o.name !== undefined &&
      (typeof o.name !== 'string' || o.name.length > MAX_MAILBOX_LENGTH || CONTROL.test(o.name))
    ) {
      return null;
    }
    const name = typeof o.name === 'string' ? o.name.trim() : '';
    return name ? { email: o.email.trim(), name } : { email: o.email.trim() };
  }
  return null;
}

/** A field that is one mailbox or a list of them; null when any entry is not a mailbox. */
export function parseMailboxList(value: unknown): Mailbox[] | null {
  const items = Array.isArray(value) ? value : [value];
  const out: Mailbox[] = [];
  for (const item of items) {
    const m = parseMailbox(item);
    if (!m) return null;
    out.push(m);
  }
  return out;
}

/** The domain part, lower-cased (the right side of a Message-ID). */
export function domainOf(email: string): string {
  return email.slice(email.lastIndexOf('@') + 1).toLowerCase();
}
