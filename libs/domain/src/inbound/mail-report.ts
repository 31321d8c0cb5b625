// Reads a report received on the inbound port: a delivery status notification (RFC 3464,
// `multipart/report; report-type=delivery-status`), a feedback report (RFC 5965, ARF,
// `report-type=feedback-report`), and in either the header block of the original message they
// return. mailparser splits the MIME parts (one pass over the bytes); the machine-readable part
// and the original's header block are then read by one bounded field reader over a capped buffer,
// so a report of thousands of groups costs no more than one of a hundred.
import { simpleParser } from 'mailparser';
import type { ParsedMail, SimpleParserOptions } from 'mailparser';

/** Per-recipient groups read from one DSN (§16); the rest of the part is not looked at. */
export const MAX_RECIPIENT_GROUPS = 100;
/** Bytes of a machine-readable part read: far more than 100 groups of real MTAs take. */
export const MAX_REPORT_PART_BYTES = 128 * 1024;
/** Bytes of the original message read: its header block only, as the relay bounds its own. */
export const MAX_ORIGINAL_HEADER_BYTES = 64 * 1024;

/** One per-recipient group of a delivery status notification. */
export interface DsnRecipient {
  /** Final-Recipient without its `rfc822;` type. */
  finalRecipient: string | null;
  /** Original-Recipient without its type. */
  originalRecipient: string | null;
  /** Lower case: `failed`, `delayed`, `delivered`, `relayed` or `expanded`. */
  action: string;
  /** The enhanced status code (`5.1.1`), or null when absent or malformed. */
  status: string | null;
  /** Diagnostic-Code without its type (`550 5.1.1 <…>: User unknown`). */
  diagnostic: string | null;
  /** Remote-MTA without its type. */
  remoteMta: string | null;
}

/** What a report quotes of the original message; only our signed tokens in it are trusted. */
export interface OriginalMessage {
  messageId: string | null;
  /** The URLs and mailto addresses of its List-Unsubscribe (our token is in both). */
  listUnsubscribe: string[];
  /** Its Return-Path: the envelope sender (a VERP address of ours). */
  returnPath: string | null;
}

export interface FeedbackFields {
  /** Lower case: `abuse`, `fraud`, `virus`, `other`, `not-spam`, … */
  feedbackType: string;
  userAgent: string | null;
  originalMailFrom: string | null;
  originalRcptTo: string[];
}

export type MailReport =
  | { kind: 'delivery-status'; recipients: DsnRecipient[]; original: OriginalMessage | null }
  | { kind: 'feedback-report'; feedback: FeedbackFields; original: OriginalMessage | null }
  | { kind: 'other' };

const OPTIONS = {
  keepDeliveryStatus: true,
  // message/rfc822 parts stay attachments even when marked inline (passed on to mailsplit).
  ignoreEmbedded: true,
  skipHtmlToText: true,
  skipTextToHtml: true,
  skipImageLinks: true,
  skipTextLinks: true,
} as SimpleParserOptions;

const DELIVERY_STATUS = ['message/delivery-status', 'message/global-delivery-status'];
const ORIGINAL = [
  'message/rfc822',
  'message/global',
  'text/rfc822-headers',
  'message/global-headers',
];

/** A group of header fields: lower-case names, unfolded values in order of appearance. */
export type FieldGroup = Map<string, string[]>;

/**
 * Groups of header fields separated by empty lines (RFC 3464 §2.1, RFC 5965 §3.1), unfolded
 * (RFC 5322 §2.2.3), read from at most `maxBytes` of `body` and at most `maxGroups` groups: one
 * pass, whatever the part holds beyond.
 */
export function fieldGroups(body: Buffer, maxGroups: number, maxBytes: number): FieldGroup[] {
  const text = body.subarray(0, maxBytes).toString('utf8');
  const groups: FieldGroup[] = [];
  let group: FieldGroup | null = null;
  let last: { name: string; values: string[] } | null = null;
  let at = 0;
  while (at < text.length) {
    let end = text.indexOf('\n', at);
    if (end < 0) end = text.length;
    const line = text.slice(at, end).replace(/\r$/, '');
    at = end + 1;
    if (!line.trim()) {
      if (group) {
        groups.push(group);
        if (groups.length >= maxGroups) return groups;
      }
      group = null;
      last = null;
    } else if (/^[ \t]/.test(line)) {
      if (last) last.values[last.values.length - 1] += ` ${line.trim()}`;
    } else {
      const colon = line.indexOf(':');
      if (colon <= 0) continue;
      const name = line.slice(0, colon).trim().toLowerCase();
      group ??= new Map();
      const values = group.get(name) ?? [];
      values.push(line.slice(colon + 1).trim());
      group.set(name, values);
      last = { name, values };
    }
  }
  if (group) groups.push(group);
  return groups.slice(0, maxGroups);
}

function field(group: FieldGroup, name: string): string | null {
  const v = group.get(name)?.[0];
  return v ? v : null;
}

/** `rfc822; <a@b.c>` → `a@b.c`; `dns; mx.example` → `mx.example`. */
export function typedValue(value: string | null): string | null {
  if (!value) return null;
  const at = value.indexOf(';');
  const bare = (at >= 0 ? value.slice(at + 1) : value).trim().replace(/^<(.*)>$/, '$1');
  return bare || null;
}

/** The enhanced status code of a Status field (`5.1.1 (user unknown)` → `5.1.1`). */
export function enhancedStatus(value: string | null): string | null {
  const m = /^\s*([245])\.(\d{1,3})\.(\d{1,3})\b/.exec(value ?? '');
  return m ? `${m[1]}.${m[2]}.${m[3]}` : null;
}

/** The `<…>` entries of a List-Unsubscribe field (RFC 2369), without the `mailto:` scheme. */
function angleEntries(value: string | null): string[] {
  return [...(value ?? '').matchAll(/<([^<>]*)>/g)].map((m) =>
    m[1].trim().replace(/^mailto:/i, ''),
  );
}

function original(mail: ParsedMail): OriginalMessage | null {
  const part = mail.attachments.find((a) => ORIGINAL.includes(a.contentType));
  if (!part) return null;
  const [headers] = fieldGroups(part.content, 1, MAX_ORIGINAL_HEADER_BYTES);
  if (!headers) return null;
  // `Return-Path: <a@b>` as RFC 5322 writes it; some MTAs leave the brackets out.
  const rawReturnPath = field(headers, 'return-path');
  const returnPath = angleEntries(rawReturnPath)[0] ?? rawReturnPath;
  return {
    messageId: field(headers, 'message-id'),
    listUnsubscribe: angleEntries(field(headers, 'list-unsubscribe')),
    returnPath: returnPath || null,
  };
}

function dsnRecipients(mail: ParsedMail): DsnRecipient[] | null {
  const part = mail.attachments.find((a) => DELIVERY_STATUS.includes(a.contentType));
  if (!part) return null;
  // The first group is about the message, the others about one recipient each.
  const [, ...perRecipient] = fieldGroups(
    part.content,
    MAX_RECIPIENT_GROUPS + 1,
    MAX_REPORT_PART_BYTES,
  );
  return perRecipient
    .filter((g) => field(g, 'action'))
    .map((g) => ({
      finalRecipient: typedValue(field(g, 'final-recipient')),
      originalRecipient: typedValue(field(g, 'original-recipient')),
      action: field(g, 'action')!.toLowerCase(),
      status: enhancedStatus(field(g, 'status')),
      diagnostic: typedValue(field(g, 'diagnostic-code')),
      remoteMta: typedValue(field(g, 'remote-mta')),
    }));
}

function feedbackFields(mail: ParsedMail): FeedbackFields | null {
  const part = mail.attachments.find((a) => a.contentType === 'message/feedback-report');
  const [fields] = part ? fieldGroups(part.content, 1, MAX_REPORT_PART_BYTES) : [];
  const feedbackType = fields ? field(fields, 'feedback-type') : null;
  if (!fields || !feedbackType) return null;
  return {
    feedbackType: feedbackType.toLowerCase(),
    userAgent: field(fields, 'user-agent'),
    originalMailFrom: typedValue(field(fields, 'original-mail-from')),
    originalRcptTo: (fields.get('original-rcpt-to') ?? [])
      .map((v) => typedValue(v))
      .filter((v): v is string => v !== null),
  };
}

/** The report a message carries; `other` for anything that is not a DSN or an ARF report. */
export async function readMailReport(raw: Buffer): Promise<MailReport> {
  const mail = await simpleParser(raw, OPTIONS);
  const type = mail.headers.get('content-type') as
    { value: string; params: Record<string, string> } | undefined;
  const reportType = type?.value === 'multipart/report' ? type.params['report-type'] : undefined;
  if (reportType === 'delivery-status') {
    const recipients = dsnRecipients(mail);
    if (!recipients) return { kind: 'other' };
    return { kind: 'delivery-status', recipients, original: original(mail) };
  }
  if (reportType === 'feedback-report') {
    const feedback = feedbackFields(mail);
    if (!feedback) return { kind: 'other' };
    return { kind: 'feedback-report', feedback, original: original(mail) };
  }
  return { kind: 'other' };
}
