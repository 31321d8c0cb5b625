// Processing of inbound mail (§14): the worker leases each received message, reads it with
// mailparser and applies it: a delivery status notification to the message it names (bounces), a
// feedback report (complaints), a mail to `unsubscribe+<token>@` as the one-click POST. The effects
// and the row's `processed` mark commit together; a failure leaves the row due again with backoff.
// Anything that names none of our messages is accepted and dropped with an info log line.
import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { Clock } from '../common/clock';
import { inTransaction } from '../database/transaction';
import { NotFoundError } from '../errors/domain-errors';
import { Events } from '../events/events.service';
import { UnsubscribeService } from '../unsubscribe/unsubscribe.service';
import { UnsubscribeTokens } from '../unsubscribe/unsubscribe-token';
import { BounceFeedback } from './bounce-feedback';
import { ComplaintFeedback } from './complaint-feedback';
import { parseInboundAddress } from './inbound-address';
import {
  InboundMessageRepository,
  InboundOutcome,
  LeasedInboundMessage,
} from './inbound-message.repository';
import { MailReport, OriginalMessage, readMailReport } from './mail-report';
import { MessageFeedbackRepository } from './message-feedback.repository';
import { BounceReference, ReturnPath } from './return-path';

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

class LeaseLost extends Error {}

@Injectable()
export class InboundService {
  private readonly logger = new Logger(InboundService.name);

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly inbound: InboundMessageRepository,
    private readonly messages: MessageFeedbackRepository,
    private readonly returnPath: ReturnPath,
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
    const address = parseInboundAddress(lease.recipients[0]);
    if (lease.kind === 'unsubscribe') return this.mailtoUnsubscribe(lease, address?.token ?? '');
    const report = await readMailReport(lease.raw);
    const verpToken = lease.kind === 'bounce' ? (address?.token ?? null) : null;
    if (report.kind === 'delivery-status') {
      const ref = this.returnPath.matchBounce({
        verpToken,
        messageId: report.original?.messageId,
      });
      const message = ref && (await this.messages.find(ref));
      if (!message) return this.finish(lease, { outcome: 'unmatched', organizationId: null });
      return this.finish(lease, (em, at) =>
        this.bounces.apply(em, message, report.recipients, ref.recipientIdx, at),
      );
    }
    if (report.kind === 'feedback-report') return this.complaint(lease, report);
    return this.finish(lease, { outcome: 'unmatched', organizationId: null });
  }

  private async complaint(
    lease: LeasedInboundMessage,
    report: Extract<MailReport, { kind: 'feedback-report' }>,
  ): Promise<InboundOutcome> {
    const ref = this.complaintReference(report.original, report.feedback.originalMailFrom);
    const message = ref && (await this.messages.find(ref));
    if (!message) return this.finish(lease, { outcome: 'unmatched', organizationId: null });
    let result: Awaited<ReturnType<ComplaintFeedback['apply']>> | undefined;
    const outcome = await this.finish(lease, async (em, at) => {
      result = await this.complaints.apply(em, message, report.feedback, ref.recipientIdx, at);
      return result;
    });
    if (result?.recipient) {
      await this.unsubscribes.noteEngagement(
        message.organizationId,
        message.id,
        'complained',
        this.clock.now(),
        {},
        result.recipient.idx,
      );
    }
    return outcome;
  }

  /**
   * The message a complaint is about: the unsubscribe token of its List-Unsubscribe header (signed
   * by us), else the VERP token of its envelope sender, else its Message-ID.
   */
  private complaintReference(
    original: OriginalMessage | null,
    originalMailFrom: string | null,
  ): BounceReference | null {
    const token = listUnsubscribeToken(original?.listUnsubscribe ?? []);
    const jobId = token ? this.tokens.verify(token) : null;
    if (jobId) return { id: null, jobId, messageId: null, recipientIdx: null };
    const sender = parseInboundAddress(originalMailFrom ?? original?.returnPath ?? '');
    return this.returnPath.matchBounce({
      verpToken: sender?.kind === 'bounce' ? sender.token : null,
      messageId: original?.messageId,
    });
  }

  /** `unsubscribe+<token>@`: the one-click POST by mail. The unsubscribe is idempotent. */
  private async mailtoUnsubscribe(
    lease: LeasedInboundMessage,
    token: string,
  ): Promise<InboundOutcome> {
    let organizationId: string;
    try {
      ({ organizationId } = await this.unsubscribes.unsubscribe(token, 'mailto'));
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw err;
      return this.finish(lease, { outcome: 'unmatched', organizationId: null });
    }
    return this.finish(lease, { outcome: 'unsubscribed', organizationId });
  }

  /** Applies `effects` and marks the message processed in one transaction, then wakes the events. */
  private async finish(
    lease: LeasedInboundMessage,
    effects: InboundOutcome | ((em: EntityManager, at: Date) => Promise<InboundOutcome>),
  ): Promise<InboundOutcome> {
    const at = this.clock.now();
    const outcome = await inTransaction(this.ds, async (em) => {
      const result = typeof effects === 'function' ? await effects(em, at) : effects;
      const mine = await this.inbound.finish(em, lease.id, lease.attempts, result, at);
      if (!mine) throw new LeaseLost('processed by another worker');
      return result;
    });
    this.events.wake();
    return outcome;
  }
}
