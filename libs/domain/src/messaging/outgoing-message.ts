// The send payload of §8 and its rules, turned into the message the worker delivers. Every rule
// that spans fields (html or text, 50 recipients, attachment size, header injection) lives here,
// so the send API, the relay and campaigns refuse the same things.
import { FieldError, ValidationFailedError } from '../errors/domain-errors';
import { Mailbox, parseMailbox, parseMailboxList } from './address';

export type MailboxInput = string | { email: string; name?: string };

export interface AttachmentInput {
  filename: string;
  /** Base64 of the file. */
  content: string;
  contentType?: string;
}

export interface SendEmailInput {
  from: MailboxInput;
  to: MailboxInput | MailboxInput[];
  cc?: MailboxInput | MailboxInput[];
  bcc?: MailboxInput | MailboxInput[];
  replyTo?: MailboxInput | MailboxInput[];
  subject: string;
  html?: string;
  text?: string;
  headers?: Record<string, string>;
  attachments?: AttachmentInput[];
  tags?: string[];
  campaignId?: string;
  contactId?: string;
  track?: { opens?: boolean; clicks?: boolean };
}

export const MAX_RECIPIENTS = 50;
export const MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024;
export const MAX_ATTACHMENTS = 20;
export const MAX_HEADERS = 50;

/** Headers the service writes itself; a payload may not set them through `headers`. */
const RESERVED_HEADERS = new Set(
  [
    'from',
    'to',
    'cc',
    'bcc',
    'reply-to',
    'subject',
    'message-id',
    'date',
    'mime-version',
    'content-type',
    'content-transfer-encoding',
    'sender',
    'return-path',
  ].map((h) => h.toLowerCase()),
);

/** RFC 5322 field name: printable ASCII except the colon. */
const HEADER_NAME = /^[\x21-\x39\x3b-\x7e]{1,76}$/;
const CRLF = /[\r\n\0]/;
const CONTENT_TYPE = /^[A-Za-z0-9][\w.+-]*\/[A-Za-z0-9][\w.+-]*$/;

/** What is stored (encrypted) with the message and read back by the worker. */
export interface MessageContent {
  v: 1;
  from: Mailbox;
  to: Mailbox[];
  cc: Mailbox[];
  bcc: Mailbox[];
  replyTo: Mailbox[];
  subject: string;
  html?: string;
  text?: string;
  headers: Record<string, string>;
  attachments: { filename: string; content: string; contentType?: string }[];
}

export interface OutgoingRecipient {
  kind: 'to' | 'cc' | 'bcc';
  email: string;
}

export interface OutgoingMessage {
  content: MessageContent;
  /** To, then Cc, then Bcc, each address once (the first occurrence wins). */
  recipients: OutgoingRecipient[];
  tags: string[];
  campaignId: string | null;
  contactId: string | null;
  trackOpens: boolean;
  trackClicks: boolean;
}

/** Strict base64 (no whitespace); linear, as attachments can be megabytes long. */
export function isBase64(s: string): boolean {
  if (s.length % 4 !== 0) return false;
  const body = s.endsWith('==') ? s.slice(0, -2) : s.endsWith('=') ? s.slice(0, -1) : s;
  return /^[A-Za-z0-9+/]*$/.test(body);
}

function decodedLength(b64: string): number {
  const padding = b64.endsWith('==') ? 2 : b64.endsWith('=') ? 1 : 0;
  return (b64.length / 4) * 3 - padding;
}

/** Validates the payload as a whole; throws one ValidationFailedError listing every problem. */
export function prepareOutgoingMessage(input: SendEmailInput): OutgoingMessage {
  const errors: FieldError[] = [];
  const fail = (field: string, rule: string, message: string) =>
    errors.push({ field, rule, message });

  const from = parseMailbox(input.from);
  if (!from) fail('from', 'email', 'from must be "Name <address>", an address or {email, name}');

  const list = (field: 'to' | 'cc' | 'bcc' | 'replyTo', required: boolean): Mailbox[] => {
    const value = input[field];
    if (value === undefined || value === null) {
      if (required) fail(field, 'required', `${field} is required`);
      return [];
    }
    if (Array.isArray(value) && value.length === 0) {
      if (required) fail(field, 'required', `${field} needs at least one address`);
      return [];
    }
    const parsed = parseMailboxList(value);
    if (!parsed) fail(field, 'email', `${field} must contain only valid email addresses`);
    return parsed ?? [];
  };
  const to = list('to', true);
  const cc = list('cc', false);
  const bcc = list('bcc', false);
  const replyTo = list('replyTo', false);

  const given = to.length + cc.length + bcc.length;
  if (given > MAX_RECIPIENTS) {
    fail('to', 'max', `At most ${MAX_RECIPIENTS} recipients (To + Cc + Bcc) per message`);
  }

  if (typeof input.subject !== 'string') fail('subject', 'required', 'subject is required');
  else if (CRLF.test(input.subject)) fail('subject', 'type', 'subject must not contain CR or LF');
  else if (input.subject.length > 998) fail('subject', 'maxLength', 'subject is too long');

  const html = typeof input.html === 'string' && input.html.length ? input.html : undefined;
  const text = typeof input.text === 'string' && input.text.length ? input.text : undefined;
  if (!html && !text) fail('html', 'required', 'html or text is required');

  const headers: Record<string, string> = {};
  const rawHeaders = input.headers ?? {};
  if (typeof rawHeaders !== 'object' || Array.isArray(rawHeaders)) {
    fail('headers', 'type', 'headers must be an object of header names to values');
  } else {
    const entries = Object.entries(rawHeaders);
    if (entries.length > MAX_HEADERS) fail('headers', 'max', `At most ${MAX_HEADERS} headers`);
    for (const [name, value] of entries) {
      const field = `headers.${name}`;
      if (!HEADER_NAME.test(name)) {
        fail(field, 'type', 'Header names are printable ASCII without colon, CR or LF');
      } else if (RESERVED_HEADERS.has(name.toLowerCase())) {
        fail(field, 'unknown', `${name} is set by the service and may not be given in headers`);
      } else if (typeof value !== 'string') {
        fail(field, 'type', 'Header values must be strings');
      } else if (CRLF.test(value)) {
        fail(field, 'type', 'Header values must not contain CR or LF');
      } else if (value.length > 998) {
        fail(field, 'maxLength', 'Header values are at most 998 characters');
      } else {
        headers[name] = value;
      }
    }
  }

  const attachments: MessageContent['attachments'] = [];
  const rawAttachments = input.attachments ?? [];
  if (rawAttachments.length > MAX_ATTACHMENTS) {
    fail('attachments', 'maxLength', `At most ${MAX_ATTACHMENTS} attachments`);
  }
  let total = 0;
  rawAttachments.forEach((a, i) => {
    const field = `attachments.${i}`;
    if (typeof a.filename !== 'string' || !a.filename.length || a.filename.length > 255) {
      fail(`${field}.filename`, 'required', 'filename is required (at most 255 characters)');
    } else if (CRLF.test(a.filename)) {
      fail(`${field}.filename`, 'type', 'filename must not contain CR or LF');
    }
    if (typeof a.content !== 'string' || !isBase64(a.content)) {
      fail(`${field}.content`, 'type', 'content must be base64');
    } else {
      total += decodedLength(a.content);
    }
    if (a.contentType !== undefined && !CONTENT_TYPE.test(a.contentType)) {
      fail(`${field}.contentType`, 'type', 'contentType must be a MIME type like text/plain');
    }
    attachments.push({ filename: a.filename, content: a.content, contentType: a.contentType });
  });
  if (total > MAX_ATTACHMENT_BYTES) {
    fail('attachments', 'max', 'Attachments may total at most 10 MiB');
  }

  if (errors.length) throw new ValidationFailedError(errors);

  const seen = new Set<string>();
  const recipients: OutgoingRecipient[] = [];
  for (const [kind, boxes] of [
    ['to', to],
    ['cc', cc],
    ['bcc', bcc],
  ] as const) {
    for (const box of boxes) {
      const key = box.email.toLowerCase();
      if (seen.has(key)) continue;
      seen.add(key);
      recipients.push({ kind, email: box.email });
    }
  }

  return {
    content: {
      v: 1,
      from: from!,
      to,
      cc,
      bcc,
      replyTo,
      subject: input.subject,
      html,
      text,
      headers,
      attachments,
    },
    recipients,
    tags: input.tags ?? [],
    campaignId: input.campaignId ?? null,
    contactId: input.contactId ?? null,
    trackOpens: input.track?.opens === true,
    trackClicks: input.track?.clicks === true,
  };
}
