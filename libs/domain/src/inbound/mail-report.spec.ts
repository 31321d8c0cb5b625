import { simpleParser } from 'mailparser';
import { fixture } from '../../../../test/unsubscribe/support/fixtures';
import {
  enhancedStatus,
  fieldGroups,
  MAX_ORIGINAL_HEADER_BYTES,
  MAX_RECIPIENT_GROUPS,
  MAX_REPORT_PART_BYTES,
  readMailReport,
  typedValue,
} from './mail-report';

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
          finalRecipient: 'ann@example.org',
          originalRecipient: 'ann@example.org',
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
          finalRecipient: 'ann@example.org',
          originalRecipient: null,
          action: 'failed',
          status: '5.1.10',
          diagnostic: expect.stringMatching(/^550 5\.1\.10 RESOLVER\.ADR\.RecipientNotFound/),
          remoteMta: 'CO1PR11MB4961.namprd11.prod.outlook.com',
        },
      ],
      original: { messageId: MESSAGE_ID, returnPath: 'bounces+tok@bounces.test' },
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

  it('reads at most 100 per-recipient groups of a huge report, in about the CPU of one parse', async () => {
    const groups = Array.from(
      { length: 2_500 },
      (_, i) =>
        `Final-Recipient: rfc822; r${i}@example.org\r\nAction: failed\r\nStatus: 5.1.1\r\n` +
        `Diagnostic-Code: smtp; 550 5.1.1 <r${i}@example.org>: User unknown\r\n`,
    );
    const raw = Buffer.from(
      'From: MAILER-DAEMON@mail.example.org\r\nMIME-Version: 1.0\r\n' +
        'Content-Type: multipart/report; report-type=delivery-status; boundary="b"\r\n\r\n' +
        '--b\r\nContent-Type: text/plain\r\n\r\nFailed.\r\n' +
        '--b\r\nContent-Type: message/delivery-status\r\n\r\nReporting-MTA: dns; mail.example.org\r\n\r\n' +
        groups.join('\r\n') +
        '\r\n--b\r\nContent-Type: text/rfc822-headers\r\n\r\n' +
        'Return-Path: <bounces+tok@bounces.test>\r\nMessage-ID: <a@b.example>\r\n\r\n--b--\r\n',
    );
    // Over twice what is read of the report part, and 25 times the groups that are kept.
    expect(raw.length).toBeGreaterThan(2 * MAX_REPORT_PART_BYTES);
    // CPU time of this process, each the least of three runs: what a loaded machine or a garbage
    // collection adds to one run does not count. The baseline is the one pass over the message
    // that no reader avoids, mailparser's own, measured here beside it.
    const leastCpu = async (work: () => Promise<unknown>) => {
      let least = Infinity;
      for (let i = 0; i < 3; i++) {
        const started = process.cpuUsage();
        await work();
        const cpu = process.cpuUsage(started);
        least = Math.min(least, (cpu.user + cpu.system) / 1000);
      }
      return least;
    };
    const parse = () => simpleParser(raw, { keepDeliveryStatus: true, skipHtmlToText: true });
    const baseline = await leastCpu(parse);
    const took = await leastCpu(() => readMailReport(raw));
    const report = await readMailReport(raw);
    expect(report).toMatchObject({
      kind: 'delivery-status',
      original: { returnPath: 'bounces+tok@bounces.test' },
    });
    const recipients = (report as { recipients: { finalRecipient: string }[] }).recipients;
    expect(recipients).toHaveLength(MAX_RECIPIENT_GROUPS);
    expect(recipients[99].finalRecipient).toBe('r99@example.org');
    // The groups are read in one bounded pass beside mailparser's; a parse per group costs tens of
    // such passes.
    expect(took).toBeLessThan(3 * baseline + 50);
  });

  it('reads groups in one bounded pass: folded fields, capped bytes and count', () => {
    const part = Buffer.from(
      'A: 1\r\nB: two\r\n  folded\r\n\r\n \r\n\r\nA: 3\r\nnot a field\r\n\r\nA: 4\r\nA: 5',
    );
    expect(fieldGroups(part, 10, 1000)).toEqual([
      new Map([
        ['a', ['1']],
        ['b', ['two folded']],
      ]),
      new Map([['a', ['3']]]),
      new Map([['a', ['4', '5']]]),
    ]);
    expect(fieldGroups(part, 2, 1000)).toHaveLength(2);
    expect(fieldGroups(part, 10, 5)).toEqual([new Map([['a', ['1']]])]);
  });

  it("reads only the original's header block, at most 64 KB of it", async () => {
    const filler = `X-Filler: ${'x'.repeat(70)}\r\n`.repeat(1000);
    const original = (headers: string) =>
      Buffer.from(
        'MIME-Version: 1.0\r\n' +
          'Content-Type: multipart/report; report-type=delivery-status; boundary="b"\r\n\r\n' +
          '--b\r\nContent-Type: message/delivery-status\r\n\r\nReporting-MTA: dns; m\r\n\r\n' +
          'Final-Recipient: rfc822; a@b.example\r\nAction: failed\r\nStatus: 5.1.1\r\n\r\n' +
          `--b\r\nContent-Type: message/rfc822\r\n\r\n${headers}\r\n` +
          `Return-Path: <late@x.example>\r\n--b--\r\n`,
      );
    expect(filler.length).toBeGreaterThan(MAX_ORIGINAL_HEADER_BYTES);
    const late = await readMailReport(original(filler));
    expect(late).toMatchObject({ original: { returnPath: null } });
    const inBody = await readMailReport(original('Subject: x\r\n\r\nbody'));
    expect(inBody).toMatchObject({ original: { returnPath: null } });
  });
});
