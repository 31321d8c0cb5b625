// The delivery policy: attempt classes, hard bounces, reply codes, the retry schedule.
import {
  classifyAttempt,
  classifySmtpReply,
  cleanSmtpMessage,
  isHardBounce,
  nextRetryAt,
  replyCode,
} from './delivery-policy';

describe('delivery policy', () => {
  it('fails a refused recipient at once, whatever else; else the reply decides', () => {
    expect(classifyAttempt(null, true)).toBe('failed');
    expect(classifyAttempt(null, false)).toBe('deferred');
    expect(classifyAttempt(250, false)).toBe('delivered');
    expect(classifyAttempt(550, false)).toBe('bounced');
  });

  it('classifies replies: 2xx delivered, 5xx bounced, 4xx and no answer deferred', () => {
    expect(classifySmtpReply(250)).toBe('delivered');
    expect(classifySmtpReply(251)).toBe('delivered');
    expect(classifySmtpReply(550)).toBe('bounced');
    expect(classifySmtpReply(554)).toBe('bounced');
    expect(classifySmtpReply(451)).toBe('deferred');
    expect(classifySmtpReply(421)).toBe('deferred');
    expect(classifySmtpReply(null)).toBe('deferred');
  });

  it('tells hard bounces (bad address) from soft ones', () => {
    expect(isHardBounce(550, '550 5.1.1 No such user')).toBe(true);
    expect(isHardBounce(550, '550 5.1.10 Recipient address rejected')).toBe(true);
    expect(isHardBounce(553, '553 mailbox name not allowed')).toBe(true);
    expect(isHardBounce(550, '550 Requested action not taken')).toBe(true);
    expect(isHardBounce(552, '552 5.2.2 Mailbox full')).toBe(false);
    expect(isHardBounce(550, '550 5.7.1 Message rejected as spam')).toBe(false);
    expect(isHardBounce(554, '554 Transaction failed')).toBe(false);
    expect(isHardBounce(451, '451 4.1.1 try later')).toBe(false);
  });

  it('reads reply codes and cleans messages', () => {
    expect(replyCode('250 2.0.0 OK')).toBe(250);
    expect(replyCode('garbage')).toBeNull();
    expect(replyCode(undefined)).toBeNull();
    expect(cleanSmtpMessage('550 bad\r\n user')).toBe('550 bad user');
    expect(cleanSmtpMessage('')).toBeNull();
  });

  it('retries after 1 min doubling, with a last try at 24 h, then gives up', () => {
    const first = new Date('2030-01-01T00:00:00Z');
    const base = 60_000;
    const day = 86_400_000;
    let at = first;
    const delays: number[] = [];
    for (let n = 0; ; n++) {
      const next = nextRetryAt(first, at, n, base, day);
      if (!next) break;
      delays.push((next.getTime() - at.getTime()) / 60_000);
      at = next;
    }
    expect(delays.slice(0, 5)).toEqual([1, 2, 4, 8, 16]);
    expect(at.getTime() - first.getTime()).toBe(day);
    // 1 + 2 + ... + 512 min, then one last try at the 24 h mark: 11 retries after the first attempt.
    expect(delays).toHaveLength(11);
  });
});
