// The send payload's rules: mailboxes, recipient order and bounds, attachments, tracking flags.
import { ValidationFailedError } from '../errors/domain-errors';
import { parseMailbox } from './address';
import { isBase64, prepareOutgoingMessage, SendEmailInput } from './outgoing-message';

const base: SendEmailInput = {
  from: 'Sender <sender@example.test>',
  to: 'a@example.test',
  subject: 'Hi',
  text: 'Hello',
};

function errorsOf(input: Partial<SendEmailInput>) {
  try {
    prepareOutgoingMessage({ ...base, ...input } as SendEmailInput);
  } catch (e) {
    expect(e).toBeInstanceOf(ValidationFailedError);
    return (e as ValidationFailedError).errors;
  }
  return [];
}

describe('prepareOutgoingMessage', () => {
  it('parses the three mailbox forms', () => {
    expect(parseMailbox('a@example.test')).toEqual({ email: 'a@example.test' });
    expect(parseMailbox('Ann Smith <a@example.test>')).toEqual({
      email: 'a@example.test',
      name: 'Ann Smith',
    });
    expect(parseMailbox('"Smith, Ann" <a@example.test>')).toEqual({
      email: 'a@example.test',
      name: 'Smith, Ann',
    });
    expect(parseMailbox({ email: 'a@example.test', name: 'Ann' })).toEqual({
      email: 'a@example.test',
      name: 'Ann',
    });
    expect(parseMailbox('Ann\r\n <a@example.test>')).toBeNull();
    expect(parseMailbox('x'.repeat(2000) + '@example.test')).toBeNull();
    expect(parseMailbox({ email: 'a@example.test', extra: 1 })).toBeNull();
  });

  it('orders recipients To, Cc, Bcc and keeps each address once', () => {
    const m = prepareOutgoingMessage({
      ...base,
      to: ['a@example.test', 'B@example.test'],
      cc: 'b@example.test',
      bcc: ['c@example.test'],
    });
    expect(m.recipients).toEqual([
      { kind: 'to', email: 'a@example.test' },
      { kind: 'to', email: 'B@example.test' },
      { kind: 'bcc', email: 'c@example.test' },
    ]);
  });

  it('reports every problem at once', () => {
    const errors = errorsOf({
      from: 'nope',
      to: [],
      text: undefined,
      headers: { 'X-A': 'ok\nBcc: x' },
    });
    expect(errors.map((e) => `${e.field}:${e.rule}`)).toEqual([
      'from:email',
      'to:required',
      'html:required',
      'headers.X-A:type',
    ]);
  });

  it('bounds recipients and attachments', () => {
    const many = Array.from({ length: 51 }, (_, i) => `r${i}@example.test`);
    expect(errorsOf({ to: many })[0]).toMatchObject({ field: 'to', rule: 'max' });
    const big = Buffer.alloc(6 * 1024 * 1024).toString('base64');
    expect(
      errorsOf({
        attachments: [
          { filename: 'a', content: big },
          { filename: 'b', content: big },
        ],
      }),
    ).toEqual([expect.objectContaining({ field: 'attachments', rule: 'max' })]);
  });

  it('checks base64 strictly', () => {
    expect(isBase64('aGVsbG8=')).toBe(true);
    expect(isBase64('aGVsbG8')).toBe(false);
    expect(isBase64('aGVs bG8=')).toBe(false);
    expect(isBase64('')).toBe(true);
  });

  it('carries tracking flags and ids', () => {
    const m = prepareOutgoingMessage({
      ...base,
      html: '<p>x</p>',
      track: { opens: true },
      campaignId: 'c',
      tags: ['t'],
    });
    expect(m).toMatchObject({ trackOpens: true, trackClicks: false, campaignId: 'c', tags: ['t'] });
  });
});
