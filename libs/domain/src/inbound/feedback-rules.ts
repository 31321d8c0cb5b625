// Which message and recipient a report may change (§14): only what a reference the platform signed
// names. A report's own address fields (Final-Recipient, Original-Rcpt-To) and its Message-ID are
// written by whoever sends it, so they never pick a message or a recipient; they only narrow a
// DSN of several per-recipient groups to those about the signed recipient.
import { normaliseEmail } from '../crypto/field-encryption';
import type { FeedbackMessage, FeedbackRecipient } from '../messaging/message-attempts';
import type { VerpTokens } from '../sending-domains/verp';
import type { UnsubscribeTokens } from '../unsubscribe/unsubscribe-token';
import { dsnOutcome } from './bounce-feedback';
import { parseInboundAddress } from './inbound-address';
import type { DsnRecipient, FeedbackFields, OriginalMessage } from './mail-report';

/**
 * A signed reference: a VERP token names the message row and the recipient; an unsubscribe token
 * names the job only (see recipientOfJob).
 */
export type FeedbackReference =
  { kind: 'verp'; messageId: string; recipientIdx: number } | { kind: 'job'; jobId: string };

/** Our unsubscribe token in a List-Unsubscribe URL (`…/u/<token>`) or address (`unsubscribe+<token>@`). */
export function listUnsubscribeToken(values: string[]): string | null {
  for (const v of values) {
    const m =
      /\/u\/([0-9a-z]{46})(?:[/?#]|$)/i.exec(v) ??
      /^(?:mailto:)?unsubscribe\+([0-9a-z]{46})@/i.exec(v);
    if (m) return m[1];
  }
  return null;
}

/** The reference a `bounces+<token>@` address carries, when its token is genuine. */
export function verpReference(verp: VerpTokens, address: string | null): FeedbackReference | null {
  const parsed = address ? parseInboundAddress(address) : null;
  const claims = parsed?.kind === 'bounce' && parsed.token ? verp.verify(parsed.token) : null;
  return claims
    ? { kind: 'verp', messageId: claims.messageId, recipientIdx: claims.recipientIndex }
    : null;
}

/**
 * The reference an ARF report carries in what it quotes: the VERP token of the original's
 * Return-Path, else of Original-Mail-From, else the unsubscribe token of its List-Unsubscribe.
 */
export function arfReference(
  tokens: { verp: VerpTokens; unsubscribe: UnsubscribeTokens },
  feedback: FeedbackFields,
  original: OriginalMessage | null,
): FeedbackReference | null {
  const byVerp =
    verpReference(tokens.verp, original?.returnPath ?? null) ??
    verpReference(tokens.verp, feedback.originalMailFrom);
  if (byVerp) return byVerp;
  const token = listUnsubscribeToken(original?.listUnsubscribe ?? []);
  const jobId = token ? tokens.unsubscribe.verify(token) : null;
  return jobId ? { kind: 'job', jobId } : null;
}

/**
 * The recipient an unsubscribe token's message stands for: its only recipient, else the one
 * recipient whose address is one of the message's contact's (`contactEmails`, normalised); null
 * when that does not single one out.
 */
export function recipientOfJob(
  message: FeedbackMessage,
  contactEmails: string[],
): FeedbackRecipient | null {
  if (message.recipients.length === 1) return message.recipients[0];
  const mine = new Set(contactEmails.map(normaliseEmail));
  const matches = message.recipients.filter((r) => mine.has(normaliseEmail(r.email)));
  const distinct = new Set(matches.map((r) => normaliseEmail(r.email)));
  return distinct.size === 1 ? matches[0] : null;
}

/** How much a per-recipient group says: a hard bounce over a soft one over a deferral. */
function severity(r: DsnRecipient): number {
  const outcome = dsnOutcome(r);
  if (!outcome) return 0;
  if (outcome.status === 'deferred') return 1;
  return outcome.hard ? 3 : 2;
}

/**
 * The one per-recipient group a DSN applies to the signed recipient: a single group applies
 * whatever address it writes (forwarding renames the final address); of several, only those whose
 * Final-Recipient or Original-Recipient is the recipient's address count, the most severe first.
 * Null when none has an outcome to record.
 */
export function dsnReportFor(reports: DsnRecipient[], email: string): DsnRecipient | null {
  const wanted = normaliseEmail(email);
  const about =
    reports.length === 1
      ? reports
      : reports.filter((r) =>
          [r.finalRecipient, r.originalRecipient].some((a) => a && normaliseEmail(a) === wanted),
        );
  let best: DsnRecipient | null = null;
  for (const r of about) {
    if (severity(r) > (best ? severity(best) : 0)) best = r;
  }
  return best;
}
