// The author and Subject of a relayed message, decoded as mailparser decodes them, and the
// messages whose author is ambiguous refused.
import { simpleParser } from 'mailparser';
import {
  headerBlock,
  LogHeaders,
  NOT_ONE_AUTHOR,
  relayHeaders,
  SEVERAL_FROM_FIELDS,
} from './log-headers';

function logHeaders(raw: Buffer): LogHeaders {
  const read = relayHeaders(raw);
  if ('refused' in read) throw new Error(read.refused);
  return read;
}

// The relay used to run mailparser over the header block; the light path must read the same.
async function viaMailparser(raw: Buffer) {
  const parsed = await simpleParser(headerBlock(raw), { skipHtmlToText: true });
  const from = parsed.from?.value[0];
  return {
    from: from?.address ? { email: from.address, name: from.name || undefined } : undefined,
    subject: parsed.subject,
  };
}

const samples: [string, Buffer][] = [
  [
    'plain',
    Buffer.from('From: Ana <ana@acme.test>\r\nTo: b@x.test\r\nSubject: Hello there\r\n\r\nbody'),
  ],
  [
    'encoded words and folding',
    Buffer.from(
      'Subject: =?UTF-8?B?w4lsw6hu?=\r\n =?UTF-8?Q?_caf=C3=A9?=\r\nFrom: =?utf-8?q?Zo=C3=AB_Q?= <zoe@acme.test>\r\n\r\nx',
    ),
  ],
  ['raw UTF-8 (SMTPUTF8)', Buffer.from('From: Jürgen <j@acme.test>\nSubject: Grüße\n\nbody')],
  ['bare address, no subject', Buffer.from('From: bare@acme.test\r\n\r\nbody')],
  ['no From', Buffer.from('Subject: only\r\n\r\n')],
  ['quoted name with comma', Buffer.from('From: "Doe, Jane" <jane@acme.test>\r\n\r\n')],
];

describe('relayHeaders', () => {
  it.each(samples)('reads %s as mailparser does', async (_name, raw) => {
    const light = logHeaders(raw);
    const reference = await viaMailparser(raw);
    expect(light.from).toEqual(reference.from);
    expect(light.subject ?? undefined).toEqual(reference.subject || undefined);
  });

  it('ends the block at the first empty line, bare LF or CRLF, as mailparser does', async () => {
    const raw = Buffer.from('Subject: first\n\nSubject: second\r\n X\r\n\r\nbody');
    expect(headerBlock(raw).toString()).toBe('Subject: first\n\n');
    expect(logHeaders(raw).subject).toBe((await simpleParser(raw)).subject);
    expect(logHeaders(raw).subject).toBe('first');
  });

  it('reads the values themselves', () => {
    expect(logHeaders(samples[1][1])).toEqual({
      from: { email: 'zoe@acme.test', name: 'Zoë Q' },
      subject: 'Élèn café',
    });
  });

  it.each([
    ['two From fields', 'From: me@acme.test\r\nTo: x@y.test\r\nFrom: ceo@bank.test\r\n\r\n'],
    ['a folded second From', 'From: me@acme.test\r\nFROM:\r\n ceo@bank.test\r\n\r\n'],
    [
      'white space before the colon',
      'Subject: s\r\nFrom: me@acme.test\r\nFrom\t: ceo@bank.test\r\n\r\n',
    ],
    ['`From :` as the first line', 'From : ceo@bank.test\r\nFrom: me@acme.test\r\n\r\n'],
    ['an empty second From', 'From: me@acme.test\r\nFrom:\r\n\r\n'],
  ])('refuses %s', (_name, raw) => {
    expect(relayHeaders(Buffer.from(raw))).toEqual({ refused: SEVERAL_FROM_FIELDS });
  });

  it.each([
    ['two addresses', 'From: me@acme.test, ceo@bank.test\r\n\r\n'],
    [
      'two addresses and one Sender',
      'From: me@acme.test, a@acme.test\r\nSender: me@acme.test\r\n\r\n',
    ],
    ['two named addresses', 'From: Me <me@acme.test>, "CEO" <ceo@bank.test>\r\n\r\n'],
    ['a group', 'From: Team: me@acme.test;\r\n\r\n'],
    ['no address', 'From: Undisclosed\r\n\r\n'],
    ['an empty From', 'From:\r\n\r\n'],
  ])('refuses a From of %s', (_name, raw) => {
    expect(relayHeaders(Buffer.from(raw))).toEqual({ refused: NOT_ONE_AUTHOR });
  });

  it('takes an mbox separator line for what it is, not a From field', () => {
    const raw = Buffer.from('From me@acme.test Thu Jan  1 10:20:30 2026\nFrom: me@acme.test\n\nx');
    expect(relayHeaders(raw)).toEqual({ from: { email: 'me@acme.test' } });
  });

  it('leaves a message without From to the envelope sender', () => {
    expect(relayHeaders(Buffer.from('Subject: none\r\n\r\nx'))).toEqual({ subject: 'none' });
  });
});
