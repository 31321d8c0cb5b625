// Attempts of a message and the moves of its states (§8, §14, §17), whoever produced them: a
// delivery run, a bounce or delay report mailed back, a provider's status callback. The shapes
// MessageAttemptsService writes through the log's one writer, and the rules of a report: which
// recipient it moves, and the message status that follows. Pure functions, pinned by unit specs.
import type { StatusUpdate } from '../channels/provider-adapter';
import type { OrgId } from '../common/org-id';
import type { RecordEffect } from '../contacts/channel-feedback.service';
import type { NewEvent } from '../events/events.service';
import type { ChannelEventRef } from './channel-events';
import { summariseRecipients } from './delivery-policy';
import type { AttemptStatus } from './delivery-policy';
import type {
  AttemptRecord,
  MessageStatus,
  RecipientState,
  RecipientStatus,
  RunOutcome,
} from './message.types';

/** A recipient's state as a record writes it, whole. */
export type RecipientMove = Pick<
  RecipientState,
  'idx' | 'status' | 'retryCount' | 'nextAttemptAt' | 'firstAttemptAt' | 'providerMessageId'
>;

/** What a record does to the message row. */
export type MessageChange =
  /** A delivery run: its outcome; the lease is given back and the follow-up job's sequence taken. */
  | { kind: 'run'; outcome: RunOutcome }
  /** A report after the runs: the status its recipients give; a completion time stays once set. */
  | { kind: 'report'; status: MessageStatus; completedAt: Date | null };

/** The rows one record writes on one message. */
export interface AttemptsWrite {
  messageId: string;
  attempts: AttemptRecord[];
  recipients: RecipientMove[];
  /** Null: the message row stays as it is. */
  message: MessageChange | null;
}

/** What follows from a record in the same transaction. */
export interface RecordConsequences {
  /** Bounces to count on the organization's ContactEmails. */
  bounces: { email: string; hard: boolean }[];
  /** What the attempt says of the recipient's channel record (beyond email). */
  recordEffect: RecordEffect | null;
  /** The record's webhook events, in order. */
  events: NewEvent[];
}

/** One record of attempts on one message, with what follows from it. */
export interface AttemptsRecord extends AttemptsWrite, RecordConsequences {
  at: Date;
}

/** The attempt a report is about. */
export interface ReportedAttempt {
  status: AttemptStatus;
  smtpCode?: number | null;
  smtpMessage?: string | null;
  mxHost?: string | null;
  providerCode?: string | null;
  /** Attempts before the one the report is about. */
  retryCount: number;
  attemptedAt: Date;
}

/** A report about one recipient of a message, after its delivery run. */
export interface MessageReport extends RecordConsequences {
  messageId: string;
  recipientIdx: number;
  attempt: ReportedAttempt;
  /** The recipient takes the attempt's status when it is in one of these. */
  movesFrom: RecipientStatus[];
}

/** A message a report is about, as read with its row locked. */
export interface LockedMessage {
  status: MessageStatus;
  recipients: Pick<RecipientMove, 'idx' | 'status' | 'retryCount' | 'firstAttemptAt'>[];
}

export interface FeedbackRecipient {
  idx: number;
  kind: 'to' | 'cc' | 'bcc';
  email: string;
  status: RecipientState['status'];
  retryCount: number;
}

/** A message of the log as a report mailed back about it needs it. */
export interface FeedbackMessage {
  id: string;
  organizationId: OrgId;
  jobId: string;
  messageId: string;
  campaignId: string | null;
  contactId: string | null;
  tags: string[];
  recipients: FeedbackRecipient[];
}

/** What a signed reference names: the message row, or the job. */
export type MessageReference = { messageId: string } | { jobId: string };

/** Messages in these states are still the delivery worker's: a report leaves their status alone. */
const IN_DELIVERY: MessageStatus[] = ['queued', 'deferred'];

/**
 * What a report writes on the message as locked: its attempt always; the recipient's move when
 * its state is one the report moves from; the message's status from its recipients' once no
 * delivery run holds it open.
 */
export function reportWrite(
  locked: LockedMessage,
  report: Pick<MessageReport, 'messageId' | 'recipientIdx' | 'attempt' | 'movesFrom'>,
): { write: AttemptsWrite; moved: boolean } {
  const a = report.attempt;
  const attempt: AttemptRecord = {
    recipientIdx: report.recipientIdx,
    status: a.status,
    smtpCode: a.smtpCode ?? null,
    smtpMessage: a.smtpMessage ?? null,
    mxHost: a.mxHost ?? null,
    outboundIp: null,
    retryCount: a.retryCount,
    attemptedAt: a.attemptedAt,
    providerCode: a.providerCode ?? null,
    segments: null,
  };
  const write: AttemptsWrite = {
    messageId: report.messageId,
    attempts: [attempt],
    recipients: [],
    message: null,
  };
  const current = locked.recipients.find((r) => r.idx === report.recipientIdx);
  if (!current || !report.movesFrom.includes(current.status)) return { write, moved: false };
  const moved: RecipientMove = { ...current, status: a.status, nextAttemptAt: null };
  write.recipients.push(moved);
  if (IN_DELIVERY.includes(locked.status)) return { write, moved: true };
  // Only the recipients' statuses count: the message is past its runs.
  const summary = summariseRecipients(
    locked.recipients.map((r) => ({
      idx: r.idx,
      kind: 'to',
      email: '',
      status: r.idx === moved.idx ? moved.status : r.status,
      retryCount: 0,
      nextAttemptAt: null,
      firstAttemptAt: null,
    })),
    a.attemptedAt,
  );
  write.message = { kind: 'report', status: summary.status, completedAt: summary.completedAt };
  return { write, moved: true };
}

/** Recipient states a provider's report never moves: its final ones. */
const FINAL: RecipientStatus[] = ['delivered', 'bounced', 'failed', 'suppressed'];

/** The statuses a provider's report records (a read receipt records `delivered`). */
export type ProviderReportStatus = 'sent' | 'delivered' | 'bounced' | 'failed';

/** The message and recipient a provider's report is about, as found with the message locked. */
export interface ProviderReported {
  messageId: string;
  recipientIdx: number;
  status: RecipientStatus;
  retryCount: number;
  ref: ChannelEventRef;
}

/**
 * The attempt a provider's status report records (§17), or null when it records nothing: a final
 * status stays, a repeat of the current one changes nothing. `sent` moves a recipient still
 * waiting; the others also a `sent` one. The report is of the send attempt that got the
 * provider's id: it counts the attempts before that one.
 */
export function providerReport(
  found: ProviderReported,
  update: Pick<StatusUpdate, 'code' | 'description'> & { status: ProviderReportStatus },
  at: Date,
): Pick<MessageReport, 'messageId' | 'recipientIdx' | 'attempt' | 'movesFrom'> | null {
  if (FINAL.includes(found.status) || found.status === update.status) return null;
  return {
    messageId: found.messageId,
    recipientIdx: found.recipientIdx,
    attempt: {
      status: update.status,
      smtpMessage: update.description ?? null,
      providerCode: update.code ?? null,
      retryCount: Math.max(0, found.retryCount - 1),
      attemptedAt: at,
    },
    movesFrom: update.status === 'sent' ? ['pending', 'deferred'] : ['pending', 'deferred', 'sent'],
  };
}
