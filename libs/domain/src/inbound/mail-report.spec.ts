import { fixture } from '../../../../test/unsubscribe/support/fixtures';
import { enhancedStatus, readMailReport, typedValue } from './mail-report';

const MESSAGE_ID = '<01JDX3R2F8K7Q0M9V4T6Z5Y8AB@shop.example>';
const values = {
  MESSAGE_ID,
  RECIPIENT: 'ann@example.org',
  BOUNCE_ADDRESS: 'bounces+tok@bounces.test',
  LIST_UNSUBSCRIBE: '<https://mail.example.com/u/0123>, <mailto:unsubscribe+0123@bounces.test>',
};

describe('readMailReport', () => {
  it('reads a Postfix bounce: the recipient report and the returned headers', async () => {
    expect(await readMailReport(fixture('postfix-dsn', values))).toEqual({
      kind: 'delivery-status',
      recipients: [
        {
          recipient: 'ann@example.org',
          action: 'failed',
          status: '5.1.1',
          diagnostic:
            '550 5.1.1 <ann@example.org>: Recipient address rejected: User unknown in virtual mailbox table',
          remoteMta: 'mx.example.org',
        },
      ],
      original: {
        messageId: MESSAGE_ID,
        listUnsubscribe: [],
        returnPath: 'bounces+tok@bounces.test',
      },
    });
  });

  it('reads an Exchange bounce, its three-digit detail and the whole returned message', async () => {
    const report = await readMailReport(fixture('exchange-dsn', values));
    expect(report).toMatchObject({
      kind: 'delivery-status',
      recipients: [
        {
          recipient: 'ann@example.org',
          action: 'failed',
          status: '5.1.10',
          diagnostic: expect.stringMatching(/^550 5\.1\.10 RESOLVER\.ADR\.RecipientNotFound/),
          remoteMta: 'CO1PR11MB4961.namprd11.prod.outlook.com',
        },
      ],
      original: { messageId: MESSAGE_ID },
    });
  });

  it('reads a delay warning', async () => {
    const report = await readMailReport(fixture('postfix-delayed-dsn', values));
    expect(report).toMatchObject({
      kind: 'delivery-status',
      recipients: [{ action: 'delayed', status: '4.4.1', remoteMta: null }],
    });
  });

  it('reads an ARF report, its recipient and the List-Unsubscribe of the inline original', async () => {
    expect(await readMailReport(fixture('arf-abuse', values))).toEqual({
      kind: 'feedback-report',
      feedback: {
        feedbackType: 'abuse',
        userAgent: 'SomeGenerator/1.0',
        originalMailFrom: 'bounces+tok@bounces.test',
        originalRcptTo: ['ann@example.org'],
      },
      original: {
        messageId: MESSAGE_ID,
        listUnsubscribe: ['https://mail.example.com/u/0123', 'unsubscribe+0123@bounces.test'],
        returnPath: null,
      },
    });
  });

  it('says `other` for plain mail and for a report without its machine part', async () => {
    const plain = Buffer.from('From: a@b.example\r\nSubject: hi\r\n\r\nHello\r\n');
    expect(await readMailReport(plain)).toEqual({ kind: 'other' });
    const cut = Buffer.from(
      fixture('postfix-dsn', values).toString().replace('message/delivery-status', 'text/plain'),
    );
    expect(await readMailReport(cut)).toEqual({ kind: 'other' });
    expect(await readMailReport(Buffer.from('\x00\x01garbage'))).toEqual({ kind: 'other' });
  });

  it('reads typed fields and status codes', () => {
    expect(typedValue('rfc822; <a@b.example>')).toBe('a@b.example');
    expect(typedValue('dns;mx.example')).toBe('mx.example');
    expect(typedValue('a@b.example')).toBe('a@b.example');
    expect(typedValue('rfc822;')).toBeNull();
    expect(enhancedStatus('5.1.1 (bad destination mailbox address)')).toBe('5.1.1');
    expect(enhancedStatus('4.4.7')).toBe('4.4.7');
    expect(enhancedStatus('250 ok')).toBeNull();
    expect(enhancedStatus(null)).toBeNull();
  });
});
