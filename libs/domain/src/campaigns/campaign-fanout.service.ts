// The campaign fan-out (§11, §17, Limits rule 4): one message per due recipient through the send
// path of the channel it was materialised on.
import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Clock } from '../common/clock';
import type { OrgId } from '../common/org-id';
import { fieldCipher } from '../crypto/field-encryption';
import { inTransaction } from '../database/transaction';
import {
  DomainError,
  RateLimitedError,
  ServiceUnavailableError,
  SubscriptionRequiredError,
} from '../errors/domain-errors';
import { Events } from '../events/events.service';
import { ChannelSendService } from '../messaging/channel-send.service';
import { QuietHours, quietUntil } from './quiet-hours';
import { SendService } from '../messaging/send.service';
import {
  CampaignRepository,
  ClaimedRecipient,
  RecipientOutcome,
  SendingCampaign,
} from './campaign.repository';
import { CampaignSweeper } from './campaign.sweeper';

/** Recipients of one campaign claimed per transaction. */
export const FANOUT_BATCH_SIZE = 50;
/** Limits rule 4: a held message is retried for up to 24 h after the campaign started. */
export const HOLD_MAX_MS = 24 * 60 * 60 * 1000;
const QUIET_HOURS = "Quiet hours in the contact's time zone";

/** The campaign's quiet hours, or null when it has none. */
function quietHoursOf(c: SendingCampaign): QuietHours | null {
  return c.quietStart === null || c.quietEnd === null
    ? null
    : { start: c.quietStart, end: c.quietEnd };
}

/** Retry delay after an error that names none (e.g. the limit counters unavailable). */
const TRANSIENT_RETRY_MS = 30_000;
/** Retry delay while the organization has no active subscription. */
const SUBSCRIPTION_RETRY_MS = 15 * 60_000;

export interface FanoutRunResult {
  sent: number;
  held: number;
  failed: number;
  completed: number;
}

/**
 * Sends through the send path of §8 (which consumes the organization's sending limits), holds
 * recipients refused by a limit until the window has room, fails them once that would be more
 * than 24 h after the campaign started, and completes the campaign (campaign.sent) when nobody is
 * left to send.
 *
 * One batch is one transaction that locks the campaign row (SKIP LOCKED: another worker already
 * runs that campaign) and claims its due recipients with FOR UPDATE SKIP LOCKED, so no two
 * workers ever handle one recipient. Messages are committed by the send path in their own
 * transactions; a worker that dies after sending but before its batch commits leaves messages
 * whose recipients are still pending, so every claimed recipient is first checked against the
 * message log: a (campaign, contact) that has a message is recorded sent, never sent again.
 */
@Injectable()
export class CampaignFanoutService {
  private readonly logger = new Logger(CampaignFanoutService.name);

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly campaigns: CampaignRepository,
    private readonly sweeper: CampaignSweeper,
    private readonly sender: SendService,
    private readonly channels: ChannelSendService,
    private readonly events: Events,
    private readonly clock: Clock,
  ) {}

  /**
   * Works every sending campaign (or only `campaignId`) until none has a due recipient left that
   * this worker can claim. Safe to run on many workers at once.
   */
  async runDue(campaignId?: string): Promise<FanoutRunResult> {
    const total: FanoutRunResult = { sent: 0, held: 0, failed: 0, completed: 0 };
    const done = new Set<string>();
    for (;;) {
      const due = await this.sweeper.dueCampaigns(this.clock.now(), campaignId);
      const todo = due.filter((c) => !done.has(c.id));
      if (!todo.length) return total;
      for (const c of todo) {
        const r = await this.runBatch(c.organizationId, c.id);
        if (!r) {
          done.add(c.id);
          continue;
        }
        total.sent += r.sent;
        total.held += r.held;
        total.failed += r.failed;
        total.completed += r.completed;
        // A short batch means nothing more is due for this campaign right now.
        if (r.claimed < FANOUT_BATCH_SIZE || r.stopped) done.add(c.id);
      }
    }
  }

  /**
   * One transaction over one campaign. Null when the campaign is not sending or another worker
   * holds it. `stopped` when a limit or an outage refused the batch part-way. A recipient inside
   * the campaign's quiet hours (in its own time zone) is held until they end.
   */
  private async runBatch(
    organizationId: OrgId,
    campaignId: string,
  ): Promise<(FanoutRunResult & { claimed: number; stopped: boolean }) | null> {
    const result = await inTransaction(
      this.ds,
      async (em) => {
        const campaign = await this.campaigns.lockSending(organizationId, campaignId, em);
        if (!campaign) return null;
        const now = this.clock.now();
        const claimed = await this.campaigns.claimDue(
          organizationId,
          campaignId,
          now,
          FANOUT_BATCH_SIZE,
          em,
        );
        const already = await this.campaigns.messagesSent(
          organizationId,
          campaignId,
          claimed.map((r) => r.contactId),
          em,
        );

        const r = { sent: 0, held: 0, failed: 0, completed: 0, claimed: claimed.length };
        // The batch's sends side by side: the send path commits concurrent messages together.
        const quiet = quietHoursOf(campaign);
        let limited = false;
        const outcomes = await Promise.all(
          claimed.map(async (row): Promise<RecipientOutcome> => {
            if (already.has(row.contactId)) {
              return { kind: 'sent', jobId: already.get(row.contactId) ?? null };
            }
            const until = quiet && quietUntil(quiet, now, row.timezone);
            if (until) return { kind: 'held', until, error: QUIET_HOURS };
            const outcome = await this.sendOne(campaign, row, now);
            if (outcome.kind === 'held') limited = true;
            return outcome;
          }),
        );
        await this.campaigns.recordOutcomes(
          organizationId,
          campaignId,
          claimed.map((row, i) => ({ contactId: row.contactId, outcome: outcomes[i] })),
          now,
          em,
        );
        for (const o of outcomes) r[o.kind] += 1;
        if (r.sent || r.failed) {
          await this.campaigns.addCounts(organizationId, campaignId, r.sent, r.failed, em);
        }
        const counts = await this.campaigns.completeIfDone(organizationId, campaignId, now, em);
        if (counts) {
          r.completed = 1;
          this.logger.log({
            msg: 'campaign sent',
            campaignId,
            organizationId,
            sentCount: counts.sentCount,
            failedCount: counts.failedCount,
          });
          const byChannel = await this.campaigns.sentByChannel(organizationId, campaignId, em);
          await this.events.emit(em, organizationId, [
            {
              type: 'campaign.sent',
              data: { campaign: { id: campaignId, name: campaign.name, ...counts, byChannel } },
            },
          ]);
        }
        return { ...r, stopped: limited };
      },
      // One run: the sends made in it are not part of the transaction, so it is never repeated.
      1,
    );
    // Committed: announce the campaign.sent deliveries (the webhook scan recovers a lost wake-up).
    if (result?.completed) this.events.wake();
    return result;
  }

  /** Sends to one recipient on its channel (an address is decrypted here and never logged). */
  private async sendOne(
    campaign: SendingCampaign,
    row: ClaimedRecipient,
    now: Date,
  ): Promise<RecipientOutcome> {
    if (row.channel === 'email' && !row.encryptedEmail) {
      return { kind: 'failed', error: 'Contact has no email address' };
    }
    try {
      const res = await this.sendOn(campaign, row);
      return { kind: 'sent', jobId: res.jobId };
    } catch (err) {
      if (err instanceof RateLimitedError || err instanceof ServiceUnavailableError) {
        const retryMs = err.retryAfter ? err.retryAfter * 1000 : TRANSIENT_RETRY_MS;
        return this.holdOrFail(campaign, new Date(now.getTime() + retryMs), err.message);
      }
      if (err instanceof SubscriptionRequiredError) {
        // The organization may renew: keep trying within the 24 h, like a limit.
        return this.holdOrFail(
          campaign,
          new Date(now.getTime() + SUBSCRIPTION_RETRY_MS),
          err.message,
        );
      }
      // Anything else the send path refuses (e.g. the address) will not change on a retry.
      if (err instanceof DomainError) return { kind: 'failed', error: err.message };
      throw err;
    }
  }

  /** The message of one recipient through the send path of its channel. */
  private sendOn(c: SendingCampaign, row: ClaimedRecipient): Promise<{ jobId: string }> {
    const org = c.organizationId;
    const common = { to: { contactId: row.contactId }, campaignId: c.id };
    switch (row.channel) {
      case 'email':
        return this.sender.send(
          org,
          {
            from: c.from!,
            to: fieldCipher().decrypt(row.encryptedEmail!),
            subject: c.subject!,
            ...(c.html !== null ? { html: c.html } : {}),
            ...(c.text !== null ? { text: c.text } : {}),
            campaignId: c.id,
            contactId: row.contactId,
            listUnsubscribe: true,
          },
          'campaign',
        );
      case 'sms':
        return this.channels.sendSms(org, { ...common, content: c.content.sms! }, 'campaign');
      case 'whatsapp':
        return this.channels.sendWhatsapp(
          org,
          { ...common, content: c.content.whatsapp! },
          'campaign',
        );
      case 'telegram':
        return this.channels.sendTelegram(
          org,
          { ...common, content: c.content.telegram! },
          'campaign',
        );
      case 'imessage':
        return this.channels.sendImessage(
          org,
          { ...common, content: c.content.imessage! },
          'campaign',
        );
      case 'push':
        return this.channels.sendPush(org, { ...common, content: c.content.push! }, 'campaign');
    }
  }

  /** Held until `until`, or failed when the next try would fall more than 24 h after the start. */
  private holdOrFail(campaign: SendingCampaign, until: Date, error: string): RecipientOutcome {
    const deadline = new Date(campaign.startedAt).getTime() + HOLD_MAX_MS;
    if (until.getTime() > deadline) {
      return { kind: 'failed', error: `${error}; not sent within 24 hours` };
    }
    return { kind: 'held', until, error };
  }
}
