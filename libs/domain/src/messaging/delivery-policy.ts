// What an SMTP answer means for a recipient (§8), when a deferred recipient is tried again, and
// what a message's status is from its recipients'. Pure functions: the delivery service and the
// rules of reports (message-attempts.ts) apply them, unit specs pin them down.
import type { MessageStatus, RecipientState, RunOutcome } from './message.types';

/** `sent`: a provider accepted a message beyond email and has not reported its delivery yet. */
export type AttemptStatus = 'sent' | 'delivered' | 'deferred' | 'bounced' | 'failed' | 'suppressed';
export const ATTEMPT_STATUSES: AttemptStatus[] = [
  'sent',
  'delivered',
  'deferred',
  'bounced',
  'failed',
  'suppressed',
];

/** 2xx delivered; 5xx bounced; 4xx, anything else and no answer at all deferred. */
export function classifySmtpReply(code: number | null): 'delivered' | 'deferred' | 'bounced' {
  if (code !== null && code >= 200 && code < 300) return 'delivered';
  if (code !== null && code >= 500 && code < 600) return 'bounced';
  return 'deferred';
}

/**
 * A recipient's attempt: refused before any SMTP exchange (every MX of its domain is a private
 * address, §16, or the domain has a null MX) it fails at once: the cause is the domain's DNS,
 * which retries within the deadline would not change, and no mail server said the address is bad
 * (so no bounce). Otherwise the server's answer decides.
 */
export function classifyAttempt(
  code: number | null,
  refused: boolean,
): 'delivered' | 'deferred' | 'bounced' | 'failed' {
  return refused ? 'failed' : classifySmtpReply(code);
}

/**
 * A hard bounce says the address itself is bad: enhanced status 5.1.x (unknown user, bad domain,
 * bad syntax), or, without an enhanced status, reply 550, 551 or 553. Other 5xx (mailbox full
 * 5.2.2, policy 5.7.x, message too big) are soft: counted, but the address stays usable.
 */
export function isHardBounce(code: number | null, message: string | null): boolean {
  if (code === null || code < 500 || code >= 600) return false;
  const enhanced = /\b([245])\.(\d{1,3})\.(\d{1,3})\b/.exec(message ?? '');
  if (enhanced) return enhanced[1] === '5' && enhanced[2] === '1';
  return code === 550 || code === 551 || code === 553;
}

/** The SMTP reply code at the start of a server response (`250 OK` → 250). */
export function replyCode(response: string | undefined | null): number | null {
  const m = /^(\d{3})/.exec((response ?? '').trim());
  return m ? Number(m[1]) : null;
}

/**
 * When a recipient deferred at `attemptAt` is tried next: base × 2^retryCount after this attempt
 * (1 min, 2 min, 4 min, ...), never later than `maxAgeMs` after its first attempt, when one last
 * try happens. Null when that deadline has passed: the recipient has failed.
 */
export function nextRetryAt(
  firstAttemptAt: Date,
  attemptAt: Date,
  retryCount: number,
  baseMs: number,
  maxAgeMs: number,
): Date | null {
  const deadline = firstAttemptAt.getTime() + maxAgeMs;
  if (attemptAt.getTime() >= deadline) return null;
  const delay = baseMs * 2 ** Math.min(retryCount, 40);
  return new Date(Math.min(attemptAt.getTime() + delay, deadline));
}

/** Trims a server answer to something safe to store and show. */
export function cleanSmtpMessage(message: string | undefined | null): string | null {
  if (!message) return null;
  return (
    message
      .replace(/\s*[\r\n]+\s*/g, ' ')
      .trim()
      .slice(0, 1000) || null
  );
}

/** Recipient states a delivery run still attempts. */
export const OPEN: RecipientState['status'][] = ['pending', 'deferred'];

/** The message's status and next due time once its recipients are in the given states. */
export function summariseRecipients(
  states: RecipientState[],
  now: Date,
  /** Attempts were recorded in this run: the message is no longer merely queued. */
  attemptedThisRun = false,
): RunOutcome {
  const open = states.filter((s) => OPEN.includes(s.status));
  if (open.length) {
    const next = Math.min(...open.map((s) => (s.nextAttemptAt ?? now).getTime()));
    // Attempted once already: its first attempt time is set even before any retry is counted.
    const attempted =
      attemptedThisRun || states.some((s) => s.retryCount > 0 || s.firstAttemptAt !== null);
    return {
      status: attempted ? 'deferred' : 'queued',
      nextAttemptAt: new Date(next),
      completedAt: null,
    };
  }
  const count = (st: RecipientState['status']) => states.filter((s) => s.status === st).length;
  const delivered = count('delivered');
  // Accepted by a provider, no receipt yet (§17): its status callback finishes the message.
  if (count('sent') > 0 && count('sent') + delivered === states.length) {
    return { status: 'sent', nextAttemptAt: null, completedAt: null };
  }
  let status: MessageStatus;
  if (delivered === states.length) status = 'delivered';
  else if (delivered > 0) status = 'partially_delivered';
  else if (count('suppressed') === states.length) status = 'suppressed';
  else if (count('bounced') > 0) status = 'bounced';
  else status = 'failed';
  return { status, nextAttemptAt: null, completedAt: now };
}
