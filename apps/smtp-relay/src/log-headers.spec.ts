// The log's From and Subject of a relayed message, decoded as mailparser decodes them.
import { simpleParser } from 'mailparser';
import { headerBlock, logHeaders } from './log-headers';

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

describe('logHeaders', () => {
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
});
