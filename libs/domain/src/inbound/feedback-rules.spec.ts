import { asOrgId } from '../common/org-id';
import { VerpTokens } from '../sending-domains/verp';
import { UnsubscribeTokens } from '../unsubscribe/unsubscribe-token';
import { dsnOutcome } from './bounce-feedback';
import {
  arfReference,
  dsnReportFor,
  listUnsubscribeToken,
  recipientOfJob,
  verpReference,
} from './feedback-rules';
import { combinedOutcome, inboundRetryDelayMs } from './inbound.service';
import type { DsnRecipient, FeedbackFields, OriginalMessage } from './mail-report';
import type { FeedbackMessage } from '../messaging/message-attempts';

const O1 = asOrgId('00000000-0000-4000-8000-0000000000f1');
const O2 = asOrgId('00000000-0000-4000-8000-0000000000f2');
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

const message = (emails: string[]) =>
  ({
    id: '0b5f0b9e-8a47-4c4f-9d6e-2f3b1c0d9e8a',
    recipients: emails.map((email, idx) => ({
      idx,
      kind: 'to',
      email,
      status: 'delivered',
      retryCount: 0,
    })),
  }) as unknown as FeedbackMessage;

const group = (over: Partial<DsnRecipient>): DsnRecipient => ({
  finalRecipient: null,
  originalRecipient: null,
  action: 'failed',
  status: '5.1.1',
  diagnostic: null,
  remoteMta: null,
  ...over,
});

describe('dsnReportFor', () => {
  it('applies a single group to the signed recipient, whatever address it writes', () => {
    const only = group({ finalRecipient: 'renamed@forward.example' });
    expect(dsnReportFor([only], 'ann@x.example')).toBe(only);
  });

  it('of several groups counts only those about the signed recipient, the most severe first', () => {
    const other = group({ finalRecipient: 'victim@x.example', status: '5.1.1' });
    const soft = group({ finalRecipient: 'ANN@x.example', status: '5.7.1' });
    const hard = group({
      originalRecipient: 'ann@x.example',
      finalRecipient: 'a@y.example',
      status: '5.2.1',
    });
    const delay = group({ finalRecipient: 'ann@x.example', action: 'delayed', status: '4.4.1' });
    const delivered = group({ finalRecipient: 'ann@x.example', action: 'delivered' });
    expect(dsnReportFor([other, delay, soft, hard], ' ann@x.example')).toBe(hard);
    expect(dsnReportFor([other, delay, soft], 'ann@x.example')).toBe(soft);
    expect(dsnReportFor([other, delay], 'ann@x.example')).toBe(delay);
    expect(dsnReportFor([other, other], 'ann@x.example')).toBeNull();
    expect(dsnReportFor([delivered], 'ann@x.example')).toBeNull();
    expect(dsnReportFor([], 'ann@x.example')).toBeNull();
  });

  it('makes forty identical groups one', () => {
    const groups = Array.from({ length: 40 }, () => group({ finalRecipient: 'ann@x.example' }));
    expect(dsnReportFor(groups, 'ann@x.example')).toBe(groups[0]);
  });
});

describe('recipientOfJob', () => {
  it("takes the only recipient, else the one whose address is the contact's", () => {
    expect(recipientOfJob(message(['a@x.example']), [])?.idx).toBe(0);
    const two = message(['a@x.example', 'B@x.example']);
    expect(recipientOfJob(two, ['b@x.example '])?.idx).toBe(1);
    expect(recipientOfJob(two, [])).toBeNull();
    expect(recipientOfJob(two, ['c@x.example'])).toBeNull();
    expect(recipientOfJob(two, ['a@x.example', 'b@x.example'])).toBeNull();
  });
});

describe('signed references', () => {
  const keys = [Buffer.alloc(32, 7)];
  const verp = new VerpTokens(keys);
  const unsubscribe = new UnsubscribeTokens(keys);
  const messageId = '0b5f0b9e-8a47-4c4f-9d6e-2f3b1c0d9e8a';
  const genuine = verp.address({ messageId, recipientIndex: 2 }, 'bounces.test');
  const flipLast = (s: string) => s.slice(0, -1) + (s.endsWith('0') ? '1' : '0');
  const feedback = (originalMailFrom: string | null): FeedbackFields => ({
    feedbackType: 'abuse',
    userAgent: null,
    originalMailFrom,
    originalRcptTo: ['victim@x.example'],
  });
  const original = (over: Partial<OriginalMessage>): OriginalMessage => ({
    messageId: '<01JDX3R2F8K7Q0M9V4T6Z5Y8AB@shop.example>',
    listUnsubscribe: [],
    returnPath: null,
    ...over,
  });

  it('trusts a genuine VERP address only', () => {
    expect(verpReference(verp, genuine)).toEqual({ kind: 'verp', messageId, recipientIdx: 2 });
    const [local, host] = genuine.split('@');
    expect(verpReference(verp, `${flipLast(local)}@${host}`)).toBeNull();
    expect(verpReference(new VerpTokens([Buffer.alloc(32, 8)]), genuine)).toBeNull();
    expect(verpReference(verp, 'fbl@bounces.test')).toBeNull();
    expect(verpReference(verp, null)).toBeNull();
  });

  it('takes an ARF report by the Return-Path, Original-Mail-From or List-Unsubscribe we signed', () => {
    const tokens = { verp, unsubscribe };
    const jobId = 'job_01JDX3R2F8K7Q0M9V4T6Z5Y8AB';
    const token = unsubscribe.sign(jobId)!;
    const byJob = { kind: 'job', jobId };
    const byVerp = { kind: 'verp', messageId, recipientIdx: 2 };
    const list = [`https://m.example/u/${token}`];
    expect(arfReference(tokens, feedback(null), original({ returnPath: genuine }))).toEqual(byVerp);
    expect(arfReference(tokens, feedback(genuine), original({}))).toEqual(byVerp);
    expect(arfReference(tokens, feedback(null), original({ listUnsubscribe: list }))).toEqual(
      byJob,
    );
    // A Message-ID of ours, or a token that does not verify, names nothing.
    expect(arfReference(tokens, feedback(null), original({}))).toBeNull();
    expect(arfReference(tokens, feedback(null), null)).toBeNull();
    const forged = [`https://m.example/u/${flipLast(token)}`];
    expect(arfReference(tokens, feedback(null), original({ listUnsubscribe: forged }))).toBeNull();
  });
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

describe('combinedOutcome', () => {
  it('says what was applied, else operator, else unmatched', () => {
    expect(combinedOutcome([], false)).toEqual({ outcome: 'unmatched', organizationId: null });
    expect(combinedOutcome([{ outcome: 'unmatched', organizationId: null }], true)).toEqual({
      outcome: 'operator',
      organizationId: null,
    });
    expect(
      combinedOutcome(
        [
          { outcome: 'unmatched', organizationId: null },
          { outcome: 'bounced', organizationId: O1 },
          { outcome: 'bounced', organizationId: O2 },
          { outcome: 'complained', organizationId: O1 },
        ],
        true,
      ),
    ).toEqual({ outcome: 'bounced,complained', organizationId: O1 });
  });
});

describe('inboundRetryDelayMs', () => {
  it('waits 30 s, doubling, at most an hour', () => {
    expect([1, 2, 3, 8, 20].map(inboundRetryDelayMs)).toEqual([
      30_000, 60_000, 120_000, 3_600_000, 3_600_000,
    ]);
  });
});
