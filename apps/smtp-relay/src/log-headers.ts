// What the message log needs of a relayed message: the From mailbox and the Subject. Read with
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

export function logHeaders(raw: Buffer): LogHeaders {
  const headers = new Headers(headerBlock(raw));
  // getFirst reads the bytes as binary (latin1); 8-bit headers are UTF-8, as mailparser assumes.
  const utf8 = (key: string) => Buffer.from(headers.getFirst(key), 'binary').toString();
  const out: LogHeaders = {};
  const subject = utf8('subject');
  if (subject) out.subject = decoded(subject);
  const first = addressparser(utf8('from'), { flatten: true })[0];
  if (first?.address) {
    const name = decoded((first.name || '').trim());
    out.from = { email: first.address, name: name || undefined };
  }
  return out;
}
