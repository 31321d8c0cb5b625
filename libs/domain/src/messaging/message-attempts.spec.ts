import type { ChannelEventRef } from './channel-events';
import { LockedMessage, providerReport, ProviderReported, reportWrite } from './message-attempts';
import type { RecipientStatus } from './message.types';

const AT = new Date('2025-05-01T10:00:00Z');
const FIRST = new Date('2025-05-01T09:00:00Z');
const MESSAGE = '0b5f0b9e-8a47-4c4f-9d6e-2f3b1c0d9e8a';

const locked = (status: LockedMessage['status'], ...states: RecipientStatus[]): LockedMessage => ({
  status,
  recipients: states.map((s, idx) => ({ idx, status: s, retryCount: 2, firstAttemptAt: FIRST })),
});

const bounce = (recipientIdx: number, movesFrom: RecipientStatus[] = ['delivered']) => ({
  messageId: MESSAGE,
  recipientIdx,
  attempt: {
    status: 'bounced' as const,
    smtpCode: 550,
    smtpMessage: '550 5.1.1 unknown user',
    mxHost: 'mx.example.org',
    retryCount: 1,
    attemptedAt: AT,
  },
  movesFrom,
});

describe('reportWrite', () => {
  it('records the attempt whatever the recipient state, without a run’s fields', () => {
    const { write } = reportWrite(locked('delivered', 'delivered'), bounce(0));
    expect(write.messageId).toBe(MESSAGE);
    expect(write.attempts).toEqual([
      {
        recipientIdx: 0,
        status: 'bounced',
        smtpCode: 550,
        smtpMessage: '550 5.1.1 unknown user',
        mxHost: 'mx.example.org',
        outboundIp: null,
        retryCount: 1,
        attemptedAt: AT,
        providerCode: null,
        segments: null,
      },
    ]);
  });

  it('moves the recipient only from a state the report names, keeping its counters', () => {
    const moved = reportWrite(locked('delivered', 'delivered'), bounce(0));
    expect(moved.moved).toBe(true);
    expect(moved.write.recipients).toEqual([
      { idx: 0, status: 'bounced', retryCount: 2, firstAttemptAt: FIRST, nextAttemptAt: null },
    ]);
    const stays = reportWrite(locked('bounced', 'bounced'), bounce(0));
    expect(stays.moved).toBe(false);
    expect(stays.write.recipients).toEqual([]);
    expect(stays.write.message).toBeNull();
    // A delay report moves nothing.
    const delay = reportWrite(locked('delivered', 'delivered'), bounce(0, []));
    expect(delay).toMatchObject({ moved: false, write: { recipients: [], message: null } });
  });

  it('records an attempt on a recipient the message does not have, moving nothing', () => {
    const r = reportWrite(locked('delivered', 'delivered'), bounce(3));
    expect(r.moved).toBe(false);
    expect(r.write.attempts).toHaveLength(1);
    expect(r.write.recipients).toEqual([]);
  });

  it('takes the finished message’s status from its recipients’', () => {
    const one = reportWrite(locked('delivered', 'delivered'), bounce(0));
    expect(one.write.message).toEqual({ kind: 'report', status: 'bounced', completedAt: AT });
    const two = reportWrite(locked('delivered', 'delivered', 'delivered'), bounce(1));
    expect(two.write.message).toEqual({
      kind: 'report',
      status: 'partially_delivered',
      completedAt: AT,
    });
  });

  it('leaves the status of a message still in delivery to its run', () => {
    for (const status of ['queued', 'deferred'] as const) {
      const r = reportWrite(locked(status, 'delivered', 'deferred'), bounce(0));
      expect(r.moved).toBe(true);
      expect(r.write.recipients).toHaveLength(1);
      expect(r.write.message).toBeNull();
    }
  });
});

describe('providerReport', () => {
  const ref: ChannelEventRef = {
    jobId: 'job_1',
    channel: 'sms',
    campaignId: null,
    contactId: null,
    tags: [],
    recipient: '+15551234567',
  };
  const found = (status: RecipientStatus, retryCount = 1): ProviderReported => ({
    messageId: MESSAGE,
    recipientIdx: 0,
    status,
    retryCount,
    ref,
  });

  it('records nothing after a final status or for a repeat of the current one', () => {
    for (const s of ['delivered', 'bounced', 'failed', 'suppressed'] as const) {
      expect(providerReport(found(s), { status: 'delivered' }, AT)).toBeNull();
    }
    expect(providerReport(found('sent'), { status: 'sent' }, AT)).toBeNull();
  });

  it('counts the attempts before the send it is about, never below zero', () => {
    const r = providerReport(found('sent', 3), { status: 'delivered', code: 'D1' }, AT);
    expect(r).toEqual({
      messageId: MESSAGE,
      recipientIdx: 0,
      attempt: {
        status: 'delivered',
        smtpMessage: null,
        providerCode: 'D1',
        retryCount: 2,
        attemptedAt: AT,
      },
      movesFrom: ['pending', 'deferred', 'sent'],
    });
    expect(providerReport(found('pending', 0), { status: 'sent' }, AT)?.attempt.retryCount).toBe(0);
  });

  it('moves a waiting recipient on `sent`, a sent one too on the others', () => {
    expect(providerReport(found('deferred'), { status: 'sent' }, AT)?.movesFrom).toEqual([
      'pending',
      'deferred',
    ]);
    const failed = providerReport(found('sent'), { status: 'failed', description: 'no route' }, AT);
    expect(failed?.movesFrom).toEqual(['pending', 'deferred', 'sent']);
    expect(failed?.attempt.smtpMessage).toBe('no route');
  });
});
