// What the relay reads of a relayed message's header: its author (the one From mailbox, which the
// sender policy checks and the worker signs for) and the Subject for the message log. Read with
// the header libraries mailparser itself uses (mailsplit's header splitter, libmime's RFC 2047
// decoder, nodemailer's addressparser), decoded as mailparser decodes them, without building
// mailparser's whole header map and stream pipeline for every message.
import Headers from '@zone-eu/mailsplit/lib/headers';
import libmime from 'libmime';
import addressparser from 'nodemailer/lib/addressparser';
import { HeaderMeter, MAX_HEADER_BYTES } from './message-intake';

export interface LogHeaders {
  from?: { email: string; name?: string };
  subject?: string;
}

/** Why a message is refused `550 5.7.1`: its author is not one unambiguous mailbox. */
export type AuthorRefusal = { refused: string };

export const SEVERAL_FROM_FIELDS = 'Message has more than one From header field';
export const NOT_ONE_AUTHOR = 'From must name exactly one mailbox';

/**
 * The header section of an RFC 5322 message: up to its first empty line (CRLF or bare LF, as
 * mailsplit splits it and the relay's cap measures it); without one, at most 64 KB.
 */
export function headerBlock(raw: Buffer): Buffer {
  const meter = new HeaderMeter();
  meter.feed(raw);
  return raw.subarray(0, meter.ended ? meter.length : Math.min(raw.length, MAX_HEADER_BYTES));
}

function decoded(value: string): string {
  try {
    return libmime.decodeWords(value);
  } catch {
    return value;
  }
}

/** 8-bit header bytes are UTF-8, as mailparser assumes (mailsplit hands them over as binary). */
function utf8(binary: string): string {
  return Buffer.from(binary, 'binary').toString();
}

// RFC 5322 obs-syntax lets white space stand before the colon, and receivers read `From :` as a
// From field. mailsplit sets a first line starting `From ` aside as an mbox separator, so that
// line is counted here when it is such a field.
const FROM_FIELD = /^From[ \t]*:/i;

/** The value of every From field, unfolded, in header order. */
function fromValues(headers: Headers): string[] {
  const lines = headers.get('from');
  if (headers.mbox !== undefined && FROM_FIELD.test(headers.mbox)) lines.unshift(headers.mbox);
  return lines.map((line) => utf8(libmime.decodeHeader(line).value));
}

/**
 * The author and Subject of a relayed message, or why it is refused. A message carries at most
 * one From field naming exactly one mailbox (no group, no second address, with or without a
 * Sender field): DMARC judges every author domain while a DKIM signature names one, so the
 * address the sender policy checks, the domain the worker signs for and what a receiver shows
 * as the author are one and the same. A message without From keeps the envelope sender.
 */
export function relayHeaders(raw: Buffer): LogHeaders | AuthorRefusal {
  const headers = new Headers(headerBlock(raw));
  const out: LogHeaders = {};
  const subject = utf8(headers.getFirst('subject'));
  if (subject) out.subject = decoded(subject);
  const values = fromValues(headers);
  if (values.length > 1) return { refused: SEVERAL_FROM_FIELDS };
  if (values.length === 0) return out;
  const mailboxes = addressparser(values[0]);
  const [author] = mailboxes;
  if (mailboxes.length !== 1 || 'group' in author || !author.address.includes('@')) {
    return { refused: NOT_ONE_AUTHOR };
  }
  const name = decoded((author.name || '').trim());
  out.from = { email: author.address, name: name || undefined };
  return out;
}
