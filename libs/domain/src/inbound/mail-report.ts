// Reads a report received on the inbound port with mailparser: a delivery status notification
// (RFC 3464, `multipart/report; report-type=delivery-status`), a feedback report (RFC 5965, ARF,
// `report-type=feedback-report`), and in either the headers of the original message they return.
// The machine-readable parts are groups of header fields; each group is read by mailparser too.
import { simpleParser } from 'mailparser';
import type { Headers, ParsedMail, SimpleParserOptions } from 'mailparser';

/** One per-recipient group of a delivery status notification. */
export interface DsnRecipient {
  /** Final-Recipient, else Original-Recipient: the address, without its `rfc822;` type. */
  recipient: string | null;
  /** Lower case: `failed`, `delayed`, `delivered`, `relayed` or `expanded`. */
  action: string;
  /** The enhanced status code (`5.1.1`), or null when absent or malformed. */
  status: string | null;
  /** Diagnostic-Code without its type (`550 5.1.1 <…>: User unknown`). */
  diagnostic: string | null;
  /** Remote-MTA without its type. */
  remoteMta: string | null;
}

/** What identifies the original message a report returns. */
export interface OriginalMessage {
  messageId: string | null;
  /** The List-Unsubscribe URL and mailto address it carried (our token is in both). */
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

function text(headers: Headers, key: string): string | null {
  const v = headers.get(key);
  const first = Array.isArray(v) ? v[0] : v;
  return typeof first === 'string' && first.trim() ? first.trim() : null;
}

function texts(headers: Headers, key: string): string[] {
  const v = headers.get(key);
  return (Array.isArray(v) ? v : [v]).filter((x): x is string => typeof x === 'string');
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

/** Groups of header fields separated by empty lines (RFC 3464 §2.1, RFC 5965 §3.1). */
async function fieldGroups(body: Buffer): Promise<Headers[]> {
  const groups = body
    .toString('utf8')
    .split(/\r?\n(?:[ \t]*\r?\n)+/)
    .filter((g) => g.trim());
  const out: Headers[] = [];
  for (const group of groups) {
    out.push((await simpleParser(`${group.trim()}\r\n\r\n`, OPTIONS)).headers);
  }
  return out;
}

async function original(mail: ParsedMail): Promise<OriginalMessage | null> {
  const part = mail.attachments.find((a) => ORIGINAL.includes(a.contentType));
  if (!part) return null;
  const headers = (await simpleParser(part.content, OPTIONS)).headers;
  const list = headers.get('list') as { unsubscribe?: { url?: string; mail?: string } } | undefined;
  const returnPath = headers.get('return-path') as { value?: { address?: string }[] } | undefined;
  return {
    messageId: text(headers, 'message-id'),
    listUnsubscribe: [list?.unsubscribe?.url, list?.unsubscribe?.mail].filter(
      (x): x is string => typeof x === 'string',
    ),
    returnPath: returnPath?.value?.[0]?.address ?? null,
  };
}

/** The report a message carries; `other` for anything that is not a DSN or an ARF report. */
export async function readMailReport(raw: Buffer): Promise<MailReport> {
  const mail = await simpleParser(raw, OPTIONS);
  const type = mail.headers.get('content-type') as
    { value: string; params: Record<string, string> } | undefined;
  const reportType = type?.value === 'multipart/report' ? type.params['report-type'] : undefined;
  if (reportType === 'delivery-status') {
    const part = mail.attachments.find((a) => DELIVERY_STATUS.includes(a.contentType));
    if (!part) return { kind: 'other' };
    // The first group is about the message, the others about one recipient each.
    const [, ...perRecipient] = await fieldGroups(part.content);
    return {
      kind: 'delivery-status',
      recipients: perRecipient
        .filter((g) => text(g, 'action'))
        .map((g) => ({
          recipient:
            typedValue(text(g, 'final-recipient')) ?? typedValue(text(g, 'original-recipient')),
          action: text(g, 'action')!.toLowerCase(),
          status: enhancedStatus(text(g, 'status')),
          diagnostic: typedValue(text(g, 'diagnostic-code')),
          remoteMta: typedValue(text(g, 'remote-mta')),
        })),
      original: await original(mail),
    };
  }
  if (reportType === 'feedback-report') {
    const part = mail.attachments.find((a) => a.contentType === 'message/feedback-report');
    const [fields] = part ? await fieldGroups(part.content) : [];
    const feedbackType = fields ? text(fields, 'feedback-type') : null;
    if (!fields || !feedbackType) return { kind: 'other' };
    return {
      kind: 'feedback-report',
      feedback: {
        feedbackType: feedbackType.toLowerCase(),
        userAgent: text(fields, 'user-agent'),
        originalMailFrom: typedValue(text(fields, 'original-mail-from')),
        originalRcptTo: texts(fields, 'original-rcpt-to')
          .map((v) => typedValue(v))
          .filter((v): v is string => v !== null),
      },
      original: await original(mail),
    };
  }
  return { kind: 'other' };
}
