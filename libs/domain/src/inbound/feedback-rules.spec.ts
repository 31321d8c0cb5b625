import { dsnOutcome, reportedRecipient } from './bounce-feedback';
import { inboundRetryDelayMs, listUnsubscribeToken } from './inbound.service';
import type { FeedbackMessage } from './message-feedback.repository';
import { messageIdReference } from './return-path';

const TOKEN = '01jdx3r2f8k7q0m9v4t6z5y8ab0123456789abcdef0123';

describe('dsnOutcome', () => {
  it.each([
    ['failed', '5.1.1', { status: 'bounced', hard: true }],
    ['failed', '5.1.10', { status: 'bounced', hard: true }],
    ['failed', '5.2.1', { status: 'bounced', hard: true }],
    ['failed', '5.2.2', { status: 'bounced', hard: false }],
    ['failed', '5.7.1', { status: 'bounced', hard: false }],
    ['failed', '4.4.7', { status: 'deferred', hard: false }],
    ['delayed', '4.4.1', { status: 'deferred', hard: false }],
    ['delayed', null, { status: 'deferred', hard: false }],
    ['delivered', '2.0.0', null],
    ['relayed', '2.0.0', null],
    ['expanded', '2.0.0', null],
    ['failed', null, null],
  ])('%s %s', (action, status, expected) =>
    expect(dsnOutcome({ action, status })).toEqual(expected),
  );
});

describe('reportedRecipient', () => {
  const message = (emails: string[]) =>
    ({
      recipients: emails.map((email, idx) => ({
        idx,
        kind: 'to',
        email,
        status: 'delivered',
        retryCount: 0,
      })),
    }) as unknown as FeedbackMessage;

  it('takes the recipient a token named, else the reported address, else the only one', () => {
    const two = message(['a@x.example', 'B@x.example']);
    expect(reportedRecipient(two, 'a@x.example', 1)?.idx).toBe(1);
    expect(reportedRecipient(two, ' b@X.example ', null)?.idx).toBe(1);
    expect(reportedRecipient(two, 'c@x.example', null)).toBeNull();
    expect(reportedRecipient(two, null, 7)).toBeNull();
    expect(reportedRecipient(message(['a@x.example']), 'alias@y.example', null)?.idx).toBe(0);
  });
});

describe('messageIdReference', () => {
  it('names the job of a Message-ID the send path made', () => {
    expect(messageIdReference(' <01jdx3r2f8k7q0m9v4t6z5y8ab@shop.example> ')).toEqual({
      id: null,
      jobId: 'job_01JDX3R2F8K7Q0M9V4T6Z5Y8AB',
      messageId: '<01jdx3r2f8k7q0m9v4t6z5y8ab@shop.example>',
      recipientIdx: null,
    });
  });

  it.each([
    '<20251118101502.4F1A22C0042@mail.example.org>',
    '01JDX3R2F8K7Q0M9V4T6Z5Y8AB@shop.example',
    '<01JDX3R2F8K7Q0M9V4T6Z5Y8AB>',
    '<81JDX3R2F8K7Q0M9V4T6Z5Y8AB@shop.example>',
  ])('knows nothing of %s', (id) => expect(messageIdReference(id)).toBeNull());
});

describe('listUnsubscribeToken', () => {
  it('finds our token in the URL or the address', () => {
    expect(listUnsubscribeToken([`https://mail.example.com/u/${TOKEN}`])).toBe(TOKEN);
    expect(
      listUnsubscribeToken(['https://other.example/x', `unsubscribe+${TOKEN}@b.example`]),
    ).toBe(TOKEN);
    expect(listUnsubscribeToken([`mailto:unsubscribe+${TOKEN}@b.example`])).toBe(TOKEN);
    expect(listUnsubscribeToken([`https://mail.example.com/u/${TOKEN}x`])).toBeNull();
    expect(listUnsubscribeToken([])).toBeNull();
  });
});

describe('inboundRetryDelayMs', () => {
  it('waits 30 s, doubling, at most an hour', () => {
    expect([1, 2, 3, 8, 20].map(inboundRetryDelayMs)).toEqual([
      30_000, 60_000, 120_000, 3_600_000, 3_600_000,
    ]);
  });
});
