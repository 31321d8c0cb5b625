// Processing of inbound mail (§14): the worker leases each received message and processes it for
// every one of our addresses it was accepted for, against the same bytes: a report (DSN or ARF)
// changes state only through a reference the platform signed (feedback-rules.ts), at most once
// per recipient; a mail to `unsubscribe+<token>@` acts as the one-click POST; `postmaster@` and
// `abuse@` mail is only kept. All effects and the row's `processed` mark commit together; a
// failure leaves the row due again with backoff. What no signed reference names is kept as
// `unmatched` with an info log line and changes nothing.
import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { Clock } from '../common/clock';
import { ContactEmailService } from '../contacts/contact-email.service';
import { inTransaction } from '../database/transaction';
import { NotFoundError } from '../errors/domain-errors';
import { Events } from '../events/events.service';
import type { FeedbackMessage, FeedbackRecipient } from '../messaging/message-attempts';
import { MessageAttemptsService } from '../messaging/message-attempts.service';
import { VerpTokens } from '../sending-domains/verp';
import { UnsubscribeService, UnsubscribeTarget } from '../unsubscribe/unsubscribe.service';
import { UnsubscribeTokens } from '../unsubscribe/unsubscribe-token';
import { BounceFeedback } from './bounce-feedback';
import { ComplaintFeedback } from './complaint-feedback';
import {
  arfReference,
  dsnReportFor,
  FeedbackReference,
  recipientOfJob,
  verpReference,
} from './feedback-rules';
import { parseInboundAddress } from './inbound-address';
import {
  InboundMessageSweeper,
  InboundOutcome,
  LeasedInboundMessage,
} from './inbound-message.sweeper';
import { MailReport, readMailReport } from './mail-report';

/** A worker holds a leased message this long before another may take it. */
export const INBOUND_LEASE_MS = 2 * 60_000;
/** Leases of one message before it is given up as `failed`. */
export const INBOUND_MAX_ATTEMPTS = 8;
/** Processed messages (and their raw bytes) are kept this long. */
export const INBOUND_KEEP_MS = 7 * 86_400_000;

/** Wait before the next try of a message whose processing failed `attempts` times: 30 s doubling, ≤ 1 h. */
export function inboundRetryDelayMs(attempts: number): number {
  return Math.min(30_000 * 2 ** Math.max(0, attempts - 1), 3_600_000);
}

/** What one address of a message asks for, found before the transaction that applies it. */
type Effect =
  | { kind: 'report'; message: FeedbackMessage; recipient: FeedbackRecipient }
  | { kind: 'unsubscribe'; target: UnsubscribeTarget };

/** The row's outcome: what was applied (distinct, in order), else `operator` or `unmatched`. */
export function combinedOutcome(outcomes: InboundOutcome[], operator: boolean): InboundOutcome {
  const applied = outcomes.filter((o) => o.outcome !== 'unmatched');
  if (!applied.length) {
    return { outcome: operator ? 'operator' : 'unmatched', organizationId: null };
  }
  return {
    outcome: [...new Set(applied.map((o) => o.outcome))].join(','),
    organizationId: applied.find((o) => o.organizationId)?.organizationId ?? null,
  };
}

class LeaseLost extends Error {}

@Injectable()
export class InboundService {
  private readonly logger = new Logger(InboundService.name);

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly inbound: InboundMessageSweeper,
    private readonly messages: MessageAttemptsService,
    private readonly contactEmails: ContactEmailService,
    private readonly verp: VerpTokens,
    private readonly tokens: UnsubscribeTokens,
    private readonly unsubscribes: UnsubscribeService,
    private readonly bounces: BounceFeedback,
    private readonly complaints: ComplaintFeedback,
    private readonly events: Events,
    private readonly clock: Clock,
  ) {}

  /** Processes due messages one by one, up to `max`; answers how many it took. */
  async processDue(max = 100): Promise<number> {
    let done = 0;
    while (done < max) {
      const lease = await this.inbound.leaseNext(this.clock.now(), INBOUND_LEASE_MS);
      if (!lease) break;
      done += 1;
      await this.processLeased(lease);
    }
    return done;
  }

  /** Deletes finished messages older than a week; answers how many. */
  purgeFinished(limit = 500): Promise<number> {
    return this.inbound.purgeFinished(
      new Date(this.clock.now().getTime() - INBOUND_KEEP_MS),
      limit,
    );
  }

  private async processLeased(lease: LeasedInboundMessage): Promise<void> {
    try {
      const outcome = await this.process(lease);
      this.logger.log({
        msg: outcome.outcome === 'unmatched' ? 'inbound mail unmatched, dropped' : 'inbound mail',
        inboundId: lease.id,
        kind: lease.kind,
        outcome: outcome.outcome,
        organizationId: outcome.organizationId,
      });
    } catch (err) {
      if (err instanceof LeaseLost) return;
      const final = lease.attempts >= INBOUND_MAX_ATTEMPTS;
      const retryAt = final
        ? null
        : new Date(this.clock.now().getTime() + inboundRetryDelayMs(lease.attempts));
      this.logger[final ? 'error' : 'warn']({
        msg: final ? 'inbound mail given up' : 'inbound mail not processed; will retry',
        inboundId: lease.id,
        attempts: lease.attempts,
        err: (err as Error).message,
      });
      await this.inbound
        .retryLater(lease.id, lease.attempts, retryAt, (err as Error).message, this.clock.now())
        .catch(() => undefined);
    }
  }

  private async process(lease: LeasedInboundMessage): Promise<InboundOutcome> {
    const addresses = lease.recipients.map((a) => ({ address: a, parsed: parseInboundAddress(a) }));
    const needsReport = addresses.some(
      (a) => a.parsed?.kind === 'bounce' || a.parsed?.kind === 'feedback',
    );
    const report: MailReport = needsReport ? await readMailReport(lease.raw) : { kind: 'other' };
    const effects: Effect[] = [];
    const seen = new Set<string>();
    for (const { address, parsed } of addresses) {
      if (parsed?.kind === 'unsubscribe') {
        const target = await this.unsubscribeTarget(parsed.token ?? '');
        if (target && !seen.has(`u:${target.jobId}`)) {
          seen.add(`u:${target.jobId}`);
          effects.push({ kind: 'unsubscribe', target });
        }
        continue;
      }
      if (parsed?.kind !== 'bounce' && parsed?.kind !== 'feedback') continue;
      const found = await this.resolve(this.reference(address, report));
      // One outcome per recipient per report, whichever of our addresses named it.
      const key = found && `r:${found.message.id}:${found.recipient.idx}`;
      if (!found || seen.has(key!)) continue;
      seen.add(key!);
      effects.push({ kind: 'report', ...found });
    }
    const operator = addresses.some((a) => a.parsed?.kind === 'operator');
    const complained: { message: FeedbackMessage; recipient: FeedbackRecipient }[] = [];
    const unsubscribed: UnsubscribeTarget[] = [];
    const outcome = await this.finish(lease, async (em, at) => {
      const outcomes: InboundOutcome[] = [];
      for (const e of effects) {
        if (e.kind === 'unsubscribe') {
          const done = await this.unsubscribes.apply(em, e.target, 'mailto', at);
          if (done.first) unsubscribed.push(e.target);
          outcomes.push({
            outcome: 'unsubscribed',
            organizationId: e.target.organizationId,
          });
        } else if (report.kind === 'delivery-status') {
          const dsn = dsnReportFor(report.recipients, e.recipient.email);
          outcomes.push(
            dsn
              ? await this.bounces.apply(em, e.message, e.recipient, dsn, at)
              : { outcome: 'unrecorded', organizationId: e.message.organizationId },
          );
        } else if (report.kind === 'feedback-report') {
          const result = await this.complaints.apply(
            em,
            e.message,
            report.feedback,
            e.recipient,
            at,
          );
          if (result.recipient) complained.push(e);
          outcomes.push(result);
        }
      }
      return combinedOutcome(outcomes, operator);
    });
    const at = this.clock.now();
    for (const t of unsubscribed) {
      if (t.messageId) {
        await this.unsubscribes.noteEngagement(t.organizationId, t.messageId, 'unsubscribed', at);
      }
    }
    for (const { message, recipient } of complained) {
      await this.unsubscribes.noteEngagement(
        message.organizationId,
        message.id,
        'complained',
        at,
        {},
        recipient.idx,
      );
    }
    return outcome;
  }

  /**
   * The signed reference a report carries for one of our addresses: the VERP token of the
   * address it arrived at, else (ARF only) the tokens of the original it quotes.
   */
  private reference(address: string, report: MailReport): FeedbackReference | null {
    if (report.kind === 'other') return null;
    const byAddress = verpReference(this.verp, address);
    if (byAddress || report.kind !== 'feedback-report') return byAddress;
    return arfReference(
      { verp: this.verp, unsubscribe: this.tokens },
      report.feedback,
      report.original,
    );
  }

  /** The message and recipient a reference names, or null. */
  private async resolve(
    ref: FeedbackReference | null,
  ): Promise<{ message: FeedbackMessage; recipient: FeedbackRecipient } | null> {
    const message =
      ref &&
      (await this.messages.findReferenced(
        ref.kind === 'verp' ? { messageId: ref.messageId } : { jobId: ref.jobId },
      ));
    if (!message) return null;
    const recipient =
      ref.kind === 'verp'
        ? (message.recipients.find((r) => r.idx === ref.recipientIdx) ?? null)
        : recipientOfJob(message, await this.addressesOfContact(message));
    return recipient && { message, recipient };
  }

  /** The addresses of the message's contact (none without one). */
  private async addressesOfContact(message: FeedbackMessage): Promise<string[]> {
    if (!message.contactId) return [];
    return this.contactEmails.addressesOf(message.organizationId, message.contactId);
  }

  /** What `unsubscribe+<token>@` unsubscribes; null when the token names nothing. */
  private async unsubscribeTarget(token: string): Promise<UnsubscribeTarget | null> {
    try {
      return await this.unsubscribes.target(token);
    } catch (err) {
      if (err instanceof NotFoundError) return null;
      throw err;
    }
  }

  /** Applies `effects` and marks the message processed in one transaction, then wakes the events. */
  private async finish(
    lease: LeasedInboundMessage,
    effects: (em: EntityManager, at: Date) => Promise<InboundOutcome>,
  ): Promise<InboundOutcome> {
    const at = this.clock.now();
    const outcome = await inTransaction(this.ds, async (em) => {
      const result = await effects(em, at);
      const mine = await this.inbound.finish(em, lease.id, lease.attempts, result, at);
      if (!mine) throw new LeaseLost('processed by another worker');
      return result;
    });
    this.events.wake();
    return outcome;
  }
}
