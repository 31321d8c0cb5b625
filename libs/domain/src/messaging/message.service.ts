// The message log's changes with their email events: a new message with its email.sent events, a
// delivery run with its outcome events, an open or click with its event, each written in one
// transaction (Events.emit in it), the webhook dispatchers woken after the commit.
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { MicroBatcher } from '../common/micro-batcher';
import type { OrgId } from '../common/org-id';
import { inTransaction } from '../database/transaction';
import { Events, NewEvent } from '../events/events.service';
import { channelOutcomeEvent, channelReadEvent } from './channel-events';
import {
  EmailEngagement,
  EmailEventRef,
  engagementEvent,
  outcomeEvent,
  sentEvent,
} from './email-events';
import { AttemptsRecord, providerReport } from './message-attempts';
import { MessageAttemptsService } from './message-attempts.service';
import { MessageLogRepository } from './message-log.repository';
import { ProviderStatusRepository } from './provider-status.repository';
import type { StatusUpdate } from '../channels/provider-adapter';
import { LeaseRequest, MessageRepository } from './message.repository';
import { ClaimedMessage, NewMessage, RecipientState, RunRecord } from './message.types';

interface ClaimCall extends LeaseRequest {
  organizationId: OrgId;
}

interface EngagementCall {
  organizationId: OrgId;
  event: NewEvent;
}

function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

/** Items grouped by organization, in their order. */
function byOrganization<T, K extends string>(items: T[], org: (item: T) => K): Map<K, T[]> {
  const out = new Map<K, T[]>();
  for (const item of items) {
    const list = out.get(org(item));
    if (list) list.push(item);
    else out.set(org(item), [item]);
  }
  return out;
}

function refOf(
  m: Pick<ClaimedMessage, 'jobId' | 'messageId' | 'campaignId' | 'contactId' | 'tags'>,
  r: Pick<RecipientState, 'email' | 'kind'>,
): EmailEventRef {
  return {
    jobId: m.jobId,
    messageId: m.messageId,
    campaignId: m.campaignId,
    contactId: m.contactId,
    tags: m.tags,
    recipient: { email: r.email, kind: r.kind },
  };
}

/** The email.sent events of a new email: one per recipient (a channel's come with its sending). */
function sentEvents(m: NewMessage): NewEvent[] {
  if (m.channel !== 'email') return [];
  return m.recipients.map((r) => sentEvent(refOf(m, r), m.source, m.createdAt));
}

/** The outcome event of each attempt of a run. */
function outcomeEvents(run: RunRecord): NewEvent[] {
  const states = new Map(run.recipients.map((r) => [r.idx, r]));
  const { message } = run;
  return run.attempts.flatMap((a) => {
    const r = states.get(a.recipientIdx)!;
    if (message.channel === 'email') {
      return [outcomeEvent(refOf(message, r), { ...a, nextAttemptAt: r.nextAttemptAt })];
    }
    const event = channelOutcomeEvent(
      {
        jobId: message.jobId,
        channel: message.channel,
        campaignId: message.campaignId,
        contactId: message.contactId,
        tags: message.tags,
        recipient: r.email,
      },
      {
        status: a.status,
        providerMessageId: r.providerMessageId ?? null,
        code: a.providerCode ?? null,
        description: a.smtpMessage,
        retryCount: a.retryCount,
        at: a.attemptedAt,
      },
    );
    return event ? [event] : [];
  });
}

/** A delivery run as the log records it: its rows, bounces, channel record change and events. */
function runRecord(run: RunRecord): AttemptsRecord {
  const { message } = run;
  return {
    messageId: message.id,
    attempts: run.attempts,
    recipients: run.recipients,
    message: { kind: 'run', outcome: run.outcome },
    bounces: run.bounces,
    recordEffect:
      run.recordEffect && message.channel !== 'email'
        ? {
            channel: message.channel,
            address: message.recipients[0].email,
            effect: run.recordEffect,
            at: run.at,
          }
        : null,
    events: outcomeEvents(run),
    at: run.at,
  };
}

/**
 * Concurrent calls of each kind are group-committed (MicroBatcher): N messages accepted or
 * delivery runs recorded at once share one transaction and one WAL flush, and each caller still
 * returns only once its change is durable.
 */
@Injectable()
export class MessageService {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly messages: MessageRepository,
    private readonly log: MessageLogRepository,
    private readonly attempts: MessageAttemptsService,
    private readonly statuses: ProviderStatusRepository,
    private readonly events: Events,
  ) {}

  /** Commits a new message with its recipients and email.sent events; answers its row id. */
  create(message: NewMessage): Promise<string> {
    return this.creates.push(message);
  }

  /**
   * Takes the delivery lease on a message that is due, so no other worker delivers it at the same
   * time. Null when it is not due, already leased, finished or gone.
   */
  async claim(
    organizationId: OrgId,
    id: string,
    now: Date,
    leaseMs: number,
  ): Promise<ClaimedMessage | null> {
    const until = new Date(now.getTime() + leaseMs);
    const claimed = await this.claims.push({ organizationId, id, now, until });
    if (claimed instanceof Error) throw claimed;
    return claimed;
  }

  /**
   * Records a delivery run (attempts, recipient states, message status, the lease given back),
   * its bounces on the ContactEmails and an outcome event per attempt; answers the dispatch
   * sequence of the message's follow-up job.
   */
  record(run: RunRecord): Promise<number> {
    return this.records.push(run);
  }

  /**
   * Records a provider's status report of a message beyond email (§17) with its event, in one
   * transaction; a refusal of the address marks the recipient's channel record. A read receipt
   * records the message delivered (when it was not yet) and raises message.read. Null when it
   * changed nothing (unknown message, a repeat, or a report after a final status); else the
   * message and recipient, for a read's engagement event.
   */
  async recordStatus(
    organizationId: OrgId,
    providerId: string,
    update: StatusUpdate,
    at: Date,
  ): Promise<{ messageId: string; recipientIdx: number } | null> {
    return this.committed(async (em) => {
      const found = await this.statuses.find(
        em,
        organizationId,
        providerId,
        update.providerMessageId,
      );
      if (!found) return null;
      const read = update.status === 'read';
      const status = update.status === 'read' ? 'delivered' : update.status;
      const report = providerReport(found, { ...update, status }, at);
      const readEvent = read ? [channelReadEvent(found.ref, update.providerMessageId, at)] : [];
      if (!report) {
        if (!readEvent.length) return null;
        await this.events.emit(em, organizationId, readEvent);
      } else {
        const outcome = channelOutcomeEvent(found.ref, {
          status,
          providerMessageId: update.providerMessageId,
          code: update.code ?? null,
          description: update.description ?? null,
          retryCount: report.attempt.retryCount,
          at,
        });
        const events = [...(outcome ? [outcome] : []), ...readEvent];
        const effect = update.addressEffect ?? (status === 'bounced' ? 'invalid' : null);
        await this.attempts.recordReport(em, organizationId, {
          ...report,
          bounces: [],
          recordEffect: effect && {
            channel: found.ref.channel,
            address: found.ref.recipient,
            effect,
            at,
          },
          events,
        });
        if (!events.length) return null;
      }
      return { messageId: found.messageId, recipientIdx: found.recipientIdx };
    });
  }

  /** Gives the lease back without a result (the run failed before anything was recorded). */
  releaseLease(organizationId: OrgId, id: string): Promise<void> {
    return this.messages.releaseLease(organizationId, id);
  }

  /**
   * Stores the webhook event of an open or click of one recipient of the organization's message;
   * nothing when the message is gone. Durable when this resolves.
   */
  async engaged(
    organizationId: OrgId,
    messageId: string,
    recipientIdx: number,
    engagement: EmailEngagement,
  ): Promise<void> {
    const ref = await this.log.eventRef(organizationId, messageId, recipientIdx);
    if (ref)
      await this.engagements.push({ organizationId, event: engagementEvent(ref, engagement) });
  }

  private readonly creates = new MicroBatcher<NewMessage, string>(
    (items) => this.committed((em) => this.createMany(em, items)),
    (item) => this.committed((em) => this.createMany(em, [item])).then(([id]) => id),
  );

  private async createMany(em: EntityManager, items: NewMessage[]): Promise<string[]> {
    const ids = new Map<NewMessage, string>();
    for (const [organizationId, group] of byOrganization(items, (m) => m.organizationId)) {
      const rows = await this.messages.insert(em, organizationId, group);
      group.forEach((m, i) => ids.set(m, rows[i]));
      await this.events.emit(em, organizationId, group.flatMap(sentEvents));
    }
    return items.map((m) => ids.get(m)!);
  }

  // A message that cannot be read (content under a key this worker lacks, corrupt JSON) is an
  // Error for its own claimer only. It must not fail the batch: the statement has already
  // committed every lease of the batch, so re-running the items alone (MicroBatcher's fallback)
  // would find them all leased and answer null, leaving the batch's other messages undelivered
  // until their leases expire.
  private readonly claims = new MicroBatcher<ClaimCall, ClaimedMessage | null | Error>(
    (items) => this.claimMany(items),
    (item) => this.claimMany([item]).then(([claimed]) => claimed),
  );

  /**
   * One statement per organization of the batch. The statements commit apart, so one that fails
   * must not fail the others' callers (their leases are taken): its own requests are tried again
   * one by one, and each gets its answer or its error.
   */
  private async claimMany(items: ClaimCall[]): Promise<(ClaimedMessage | null | Error)[]> {
    const out = new Map<ClaimCall, ClaimedMessage | null | Error>();
    const claimGroup = async (organizationId: OrgId, group: ClaimCall[]) => {
      const claimed = await this.messages.claim(organizationId, group);
      group.forEach((c, i) => out.set(c, claimed[i]));
    };
    await Promise.all(
      [...byOrganization(items, (c) => c.organizationId)].map(([organizationId, group]) =>
        claimGroup(organizationId, group).catch(async (err: unknown) => {
          if (group.length === 1) return out.set(group[0], asError(err));
          for (const c of group)
            await claimGroup(organizationId, [c]).catch((e: unknown) => out.set(c, asError(e)));
        }),
      ),
    );
    return items.map((c) => out.get(c)!);
  }

  private readonly records = new MicroBatcher<RunRecord, number>(
    (items) => this.committed((em) => this.recordMany(em, items)),
    (item) => this.committed((em) => this.recordMany(em, [item])).then(([seq]) => seq),
  );

  private async recordMany(em: EntityManager, runs: RunRecord[]): Promise<number[]> {
    const seqs = new Map<RunRecord, number>();
    for (const [organizationId, group] of byOrganization(runs, (r) => r.message.organizationId)) {
      const rows = await this.attempts.record(em, organizationId, group.map(runRecord));
      group.forEach((r, i) => seqs.set(r, rows[i]));
    }
    return runs.map((r) => seqs.get(r)!);
  }

  private readonly engagements = new MicroBatcher<EngagementCall, void>(
    (items) => this.committed((em) => this.emitMany(em, items)),
    (item) => this.committed((em) => this.emitMany(em, [item])).then(() => undefined),
  );

  private async emitMany(em: EntityManager, items: EngagementCall[]): Promise<void[]> {
    for (const [organizationId, group] of byOrganization(items, (e) => e.organizationId)) {
      await this.events.emit(
        em,
        organizationId,
        group.map((e) => e.event),
      );
    }
    return items.map(() => undefined);
  }

  /** `work` in one transaction; once it has committed, the webhook dispatchers are woken. */
  private async committed<T>(work: (em: EntityManager) => Promise<T>): Promise<T> {
    const out = await inTransaction(this.ds, work);
    this.events.wake();
    return out;
  }
}
