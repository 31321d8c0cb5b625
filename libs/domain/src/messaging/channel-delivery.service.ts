// Delivers one claimed message beyond email (§17) through its provider account: the record's
// consent first, then the account's throughput, then the adapter; the provider's answer decides
// the attempt, recorded through MessageService.record like every email attempt.
import { Inject, Injectable, Logger } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { addressIndexKind, UNSENDABLE_RECORD_STATUSES } from '../channels/channel-message';
import { blindIndexOf } from '../contacts/blind-index';
import { ChannelProviderService } from '../channels/channel-provider.service';
import { ProviderAccounts } from '../channels/provider-accounts';
import type { ProviderMessage, SendOutcome } from '../channels/provider-adapter';
import { ProviderRegistry } from '../channels/provider-registry';
import { ProviderThrottle } from '../channels/provider-throttle';
import { Clock } from '../common/clock';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { AttemptStatus, nextRetryAt } from './delivery-policy';
import { EmailDispatcher } from './email-dispatcher';
import { MessageService } from './message.service';
import { ShortLinks } from './tracking/short-links';
import type {
  AttemptRecord,
  ClaimedChannelMessage,
  ClaimedRecipient,
  RecipientState,
  RunOutcome,
  RunRecord,
} from './message.types';

/** A wait for the account's budget this short is slept through; a longer one defers the message. */
const MAX_THROTTLE_SLEEP_MS = 1000;

/** What the run decided for the one recipient, before it is recorded. */
interface Decision {
  status: AttemptStatus;
  next: Date | null;
  text: string | null;
  code?: string | null;
  providerMessageId?: string | null;
  segments?: number | null;
  recordEffect?: RunRecord['recordEffect'];
}

export interface ChannelRun {
  status: RunOutcome['status'];
  attempts: number;
  nextAttemptAt: Date | null;
}

@Injectable()
export class ChannelDeliveryService {
  private readonly logger = new Logger(ChannelDeliveryService.name);

  constructor(
    private readonly messages: MessageService,
    private readonly accounts: ProviderAccounts,
    private readonly providers: ChannelProviderService,
    private readonly registry: ProviderRegistry,
    private readonly throttle: ProviderThrottle,
    private readonly dispatcher: EmailDispatcher,
    private readonly shortLinks: ShortLinks,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** One delivery run of a claimed channel message (its lease held). */
  async deliver(message: ClaimedChannelMessage, claimedAt: Date): Promise<ChannelRun | null> {
    const recipient = message.recipients[0];
    const open = recipient.status === 'pending' || recipient.status === 'deferred';
    if (!open || (recipient.nextAttemptAt && recipient.nextAttemptAt > claimedAt)) {
      await this.messages.releaseLease(message.organizationId, message.id);
      return null;
    }
    const unsendable = UNSENDABLE_RECORD_STATUSES[message.channel];
    if (recipient.contactStatus && unsendable.includes(recipient.contactStatus)) {
      return this.record(message, recipient, {
        status: 'suppressed',
        next: null,
        text: `Not sent: the ${message.channel} record is ${recipient.contactStatus}`,
      });
    }
    const sending = message.providerId
      ? await this.accounts.forSending(message.organizationId, message.providerId)
      : null;
    const adapter =
      sending && this.registry.adapterFor(sending.record.channel, sending.record.provider);
    if (!sending || !adapter || sending.record.status === 'disabled') {
      return this.record(message, recipient, {
        status: 'failed',
        next: null,
        text: sending ? 'Not sent: the provider account is disabled' : 'Not sent: no provider',
      });
    }
    const perAddress = adapter.perAddressPerSecond
      ? {
          index: blindIndexOf(addressIndexKind(message.channel), recipient.email),
          perSecond: adapter.perAddressPerSecond,
        }
      : undefined;
    const wait = await this.budget(sending.record.id, sending.record.maxPerSecond, perAddress);
    if (wait > 0) return this.hold(message, recipient, wait);

    const outgoing = await this.providerMessage(message, recipient);
    const outcome = await adapter.send(sending.account, outgoing);
    // The account's health changes on a refusal of its credentials, or on the first send they
    // pass after refusals; an account in good health is not written once per message.
    const healthy = sending.record.status === 'active' && !sending.record.consecutiveAuthFailures;
    if (outcome.kind === 'unauthorized' || !healthy) {
      await this.providers
        .recordOutcome(message.organizationId, sending.record.id, outcome)
        .catch((err: Error) =>
          this.logger.warn({ msg: 'provider health not recorded', err: err.message }),
        );
    }
    if (outcome.kind === 'throttled') {
      await this.throttle.pause(sending.record.id, outcome.retryAfterMs);
    }
    return this.record(message, recipient, this.decide(recipient, outcome));
  }

  /** Sleeps through a short wait for the account's budget; answers a longer one. */
  private async budget(
    providerId: string,
    maxPerSecond: number,
    address?: { index: string; perSecond: number },
  ): Promise<number> {
    for (;;) {
      const wait = await this.throttle.take(providerId, maxPerSecond, address);
      if (wait === 0 || wait > MAX_THROTTLE_SLEEP_MS) return wait;
      await sleep(wait);
    }
  }

  /** What the adapter sends: a text's links through short tracked links when clicks are tracked. */
  private async providerMessage(
    m: ClaimedChannelMessage,
    r: ClaimedRecipient,
  ): Promise<ProviderMessage> {
    const { kind: _kind, ...content } = m.content;
    if (m.trackClicks && 'text' in m.content && m.content.text) {
      Object.assign(content, {
        text: await this.shortLinks.rewrite(m.content.text, this.config.publicBaseUrl, {
          organizationId: m.organizationId,
          messageId: m.id,
          recipientIndex: r.idx,
        }),
      });
    }
    return {
      reference: m.jobId,
      to: r.email,
      platform: m.content.kind === 'push' ? m.content.platform : undefined,
      content,
      statusCallbackUrl: `${this.config.publicBaseUrl}/channels/callbacks/${m.providerId}`,
    };
  }

  private decide(r: ClaimedRecipient, outcome: SendOutcome): Decision {
    const now = this.clock.now();
    const retry = (text: string, code: string | null = null, at?: Date): Decision => {
      const next = nextRetryAt(
        r.firstAttemptAt ?? now,
        now,
        r.retryCount,
        this.config.deliveryRetryBaseMs,
        this.config.deliveryRetryMaxAgeMs,
      );
      if (!next) return { status: 'failed', next: null, text, code };
      return { status: 'deferred', next: at && at < next ? at : next, text, code };
    };
    switch (outcome.kind) {
      case 'accepted':
        return {
          status: outcome.status,
          next: null,
          text: null,
          providerMessageId: outcome.providerMessageId,
          segments: outcome.segments ?? null,
          recordEffect: 'used',
        };
      case 'rejected':
        if (!outcome.permanent) return retry(outcome.message, outcome.code);
        return {
          status: outcome.addressEffect ? 'bounced' : 'failed',
          next: null,
          text: outcome.message,
          code: outcome.code,
          recordEffect: outcome.addressEffect,
        };
      case 'throttled': {
        const at = new Date(now.getTime() + outcome.retryAfterMs);
        return retry('The provider asked to slow down (429)', '429', at);
      }
      case 'unavailable':
        return retry(outcome.message);
      case 'unauthorized':
        return retry(`The provider refused the account's credentials: ${outcome.message}`);
    }
  }

  /** The account is paused or out of budget for longer: the message waits, without an attempt. */
  private async hold(m: ClaimedChannelMessage, r: ClaimedRecipient, waitMs: number) {
    const now = this.clock.now();
    const waiting: RecipientState = { ...r, nextAttemptAt: new Date(now.getTime() + waitMs) };
    const attempted = r.firstAttemptAt !== null;
    const outcome: RunOutcome = {
      status: attempted ? 'deferred' : 'queued',
      nextAttemptAt: waiting.nextAttemptAt,
      completedAt: null,
    };
    return this.commit(
      { message: m, attempts: [], recipients: [waiting], outcome, bounces: [], at: now },
      0,
    );
  }

  private async record(m: ClaimedChannelMessage, r: ClaimedRecipient, d: Decision) {
    const now = this.clock.now();
    const attempt: AttemptRecord = {
      recipientIdx: r.idx,
      status: d.status,
      smtpCode: null,
      smtpMessage: d.text,
      mxHost: null,
      outboundIp: null,
      retryCount: r.retryCount,
      attemptedAt: now,
      providerCode: d.code ?? null,
      segments: d.segments ?? null,
    };
    const state: RecipientState = {
      ...r,
      status: d.status,
      retryCount: r.retryCount + 1,
      nextAttemptAt: d.next,
      firstAttemptAt: r.firstAttemptAt ?? now,
      providerMessageId: d.providerMessageId ?? r.providerMessageId ?? null,
    };
    const final = d.status !== 'deferred' && d.status !== 'sent';
    const outcome: RunOutcome = {
      status: d.status === 'deferred' ? 'deferred' : d.status,
      nextAttemptAt: d.next,
      completedAt: final ? now : null,
    };
    return this.commit(
      {
        message: m,
        attempts: [attempt],
        recipients: [state],
        outcome,
        bounces: [],
        recordEffect: d.recordEffect,
        at: now,
      },
      1,
    );
  }

  private async commit(run: RunRecord, attempts: number): Promise<ChannelRun> {
    const seq = await this.messages.record(run);
    const next = run.outcome.nextAttemptAt;
    if (next) {
      await this.dispatcher.enqueue(
        run.message.organizationId,
        run.message.id,
        seq,
        next.getTime() - this.clock.now().getTime(),
      );
    }
    return { status: run.outcome.status, attempts, nextAttemptAt: next };
  }
}
