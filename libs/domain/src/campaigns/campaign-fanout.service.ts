// The campaign fan-out (§11, Limits rule 4): sends one message per due recipient through the send
// path of §8 (which consumes the organization's sending limits), holds recipients refused by a
// limit until the window has room, fails them once that would be more than 24 h after the
// campaign started, and completes the campaign (campaign.sent) when nobody is left to send.
//
// One batch is one transaction that locks the campaign row (SKIP LOCKED: another worker already
// runs that campaign) and claims its due recipients with FOR UPDATE SKIP LOCKED, so no two
// workers ever handle one recipient. Messages are committed by the send path in their own
// transactions; a worker that dies after sending but before its batch commits leaves messages
// whose recipients are still pending, so every claimed recipient is first checked against the
// message log: a (campaign, contact) that has a message is recorded sent, never sent again.
import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { Clock } from '../common/clock';
import { fieldCipher } from '../crypto/field-encryption';
import {
  DomainError,
  RateLimitedError,
  ServiceUnavailableError,
  SubscriptionRequiredError,
} from '../errors/domain-errors';
import { SendService } from '../messaging/send.service';
import { Events } from '../events/events.service';

/** Recipients of one campaign claimed per transaction. */
export const FANOUT_BATCH_SIZE = 50;
/** Limits rule 4: a held message is retried for up to 24 h after the campaign started. */
export const HOLD_MAX_MS = 24 * 60 * 60 * 1000;
/** Retry delay after an error that names none (e.g. the limit counters unavailable). */
const TRANSIENT_RETRY_MS = 30_000;
/** Retry delay while the organization has no active subscription. */
const SUBSCRIPTION_RETRY_MS = 15 * 60_000;

interface CampaignRow {
  id: string;
  organization_id: string;
  name: string;
  subject: string;
  html: string | null;
  text: string | null;
  from_address: string;
  started_at: Date;
}

interface ClaimedRow {
  contact_id: string;
  email: string | null;
  attempts: number;
}

type Outcome =
  | { kind: 'sent'; jobId: string | null }
  | { kind: 'held'; until: Date; error: string }
  | { kind: 'failed'; error: string };

export interface FanoutRunResult {
  sent: number;
  held: number;
  failed: number;
  completed: number;
}

@Injectable()
export class CampaignFanoutService {
  private readonly logger = new Logger(CampaignFanoutService.name);

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly sender: SendService,
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
      const ids = campaignId ? [campaignId] : await this.dueCampaigns();
      const todo = ids.filter((id) => !done.has(id));
      if (!todo.length) return total;
      for (const id of todo) {
        const r = await this.runBatch(id);
        if (!r) {
          done.add(id);
          continue;
        }
        total.sent += r.sent;
        total.held += r.held;
        total.failed += r.failed;
        total.completed += r.completed;
        // A short batch means nothing more is due for this campaign right now.
        if (r.claimed < FANOUT_BATCH_SIZE || r.stopped) done.add(id);
      }
    }
  }

  /** Sending campaigns with a due recipient, oldest start first. */
  private async dueCampaigns(): Promise<string[]> {
    const rows: { id: string }[] = await this.ds.query(
      `SELECT c.id FROM campaigns c
        WHERE c.status = 'sending'
          AND (EXISTS (SELECT 1 FROM campaign_recipients r
                        WHERE r.campaign_id = c.id AND r.status IN ('pending','held')
                          AND r.next_attempt_at <= $1)
               OR NOT EXISTS (SELECT 1 FROM campaign_recipients r
                               WHERE r.campaign_id = c.id AND r.status IN ('pending','held')))
        ORDER BY c.started_at
        LIMIT 100`,
      [this.clock.now()],
    );
    return rows.map((r) => r.id);
  }

  /**
   * One transaction over one campaign. Null when the campaign is not sending or another worker
   * holds it. `stopped` when a limit or an outage refused the batch part-way.
   */
  private async runBatch(
    campaignId: string,
  ): Promise<(FanoutRunResult & { claimed: number; stopped: boolean }) | null> {
    const result = await this.ds.transaction(async (em) => {
      const [campaign]: CampaignRow[] = await em.query(
        `SELECT id, organization_id, name, subject, html, text, from_address, started_at
           FROM campaigns WHERE id = $1 AND status = 'sending'
           FOR NO KEY UPDATE SKIP LOCKED`,
        [campaignId],
      );
      if (!campaign) return null;
      const now = this.clock.now();
      const claimed = await this.claim(em, campaign, now);
      const already = await this.alreadySent(
        em,
        campaign.id,
        claimed.map((r) => r.contact_id),
      );

      const r = { sent: 0, held: 0, failed: 0, completed: 0, claimed: claimed.length };
      let stop: Outcome | null = null;
      for (const row of claimed) {
        let outcome: Outcome;
        if (already.has(row.contact_id)) {
          outcome = { kind: 'sent', jobId: already.get(row.contact_id) ?? null };
        } else if (stop) {
          // The window that refused the previous recipient refuses this one too: no need to ask.
          outcome = stop;
        } else {
          outcome = await this.sendOne(campaign, row, now);
          if (outcome.kind === 'held') stop = outcome;
        }
        await this.record(em, campaign.id, row.contact_id, outcome, now);
        r[outcome.kind] += 1;
      }
      if (r.sent || r.failed) {
        await em.query(
          `UPDATE campaigns SET sent_count = sent_count + $2, failed_count = failed_count + $3,
                  updated_at = now()
            WHERE id = $1`,
          [campaign.id, r.sent, r.failed],
        );
      }
      const finished = await this.completeIfDone(em, campaign, now);
      if (finished) r.completed = 1;
      return { ...r, stopped: stop !== null };
    });
    // Committed: announce the campaign.sent deliveries (the webhook scan recovers a lost wake-up).
    if (result?.completed) this.events.wake();
    return result;
  }

  /** The campaign's due recipients, locked, with their decrypted address (never logged). */
  private async claim(em: EntityManager, campaign: CampaignRow, now: Date): Promise<ClaimedRow[]> {
    const rows: { contact_id: string; email: string | null; attempts: number }[] = await em.query(
      `WITH due AS (
         SELECT contact_id FROM campaign_recipients
          WHERE campaign_id = $1 AND status IN ('pending','held') AND next_attempt_at <= $2
          ORDER BY next_attempt_at, contact_id
          LIMIT $3
          FOR UPDATE SKIP LOCKED),
       claimed AS (
       UPDATE campaign_recipients r
          SET attempts = r.attempts + 1, updated_at = now()
         FROM due
        WHERE r.campaign_id = $1 AND r.contact_id = due.contact_id
       RETURNING r.contact_id, r.attempts,
                 (SELECT e.email FROM contact_emails e WHERE e.id = r.contact_email_id) AS email)
       SELECT contact_id, attempts, email FROM claimed`,
      [campaign.id, now, FANOUT_BATCH_SIZE],
    );
    const cipher = fieldCipher();
    return rows.map((row) => ({
      contact_id: row.contact_id,
      email: row.email === null ? null : cipher.decrypt(row.email),
      attempts: row.attempts,
    }));
  }

  /** Contacts of this batch that already have a message of the campaign, with its job id. */
  private async alreadySent(
    em: EntityManager,
    campaignId: string,
    contactIds: string[],
  ): Promise<Map<string, string>> {
    if (!contactIds.length) return new Map();
    const rows: { contact_id: string; job_id: string }[] = await em.query(
      `SELECT DISTINCT ON (contact_id) contact_id, job_id FROM messages
        WHERE campaign_id = $1 AND contact_id = ANY($2::uuid[])
        ORDER BY contact_id, created_at`,
      [campaignId, contactIds],
    );
    return new Map(rows.map((r) => [r.contact_id, r.job_id]));
  }

  private async sendOne(campaign: CampaignRow, row: ClaimedRow, now: Date): Promise<Outcome> {
    if (!row.email) return { kind: 'failed', error: 'Contact has no email address' };
    try {
      const res = await this.sender.send(
        campaign.organization_id,
        {
          from: campaign.from_address,
          to: row.email,
          subject: campaign.subject,
          ...(campaign.html !== null ? { html: campaign.html } : {}),
          ...(campaign.text !== null ? { text: campaign.text } : {}),
          campaignId: campaign.id,
          contactId: row.contact_id,
          listUnsubscribe: true,
        },
        'campaign',
      );
      return { kind: 'sent', jobId: res.jobId };
    } catch (err) {
      if (err instanceof RateLimitedError || err instanceof ServiceUnavailableError) {
        const retryMs = err.retryAfter ? err.retryAfter * 1000 : TRANSIENT_RETRY_MS;
        return this.holdOrFail(campaign, now, new Date(now.getTime() + retryMs), err.message);
      }
      if (err instanceof SubscriptionRequiredError) {
        // The organization may renew: keep trying within the 24 h, like a limit.
        return this.holdOrFail(
          campaign,
          now,
          new Date(now.getTime() + SUBSCRIPTION_RETRY_MS),
          err.message,
        );
      }
      // Anything else the send path refuses (e.g. the address) will not change on a retry.
      if (err instanceof DomainError) return { kind: 'failed', error: err.message };
      throw err;
    }
  }

  /** Held until `until`, or failed when the next try would fall more than 24 h after the start. */
  private holdOrFail(campaign: CampaignRow, now: Date, until: Date, error: string): Outcome {
    const deadline = new Date(campaign.started_at).getTime() + HOLD_MAX_MS;
    if (until.getTime() > deadline) {
      return { kind: 'failed', error: `${error}; not sent within 24 hours` };
    }
    return { kind: 'held', until, error };
  }

  private async record(
    em: EntityManager,
    campaignId: string,
    contactId: string,
    o: Outcome,
    now: Date,
  ): Promise<void> {
    if (o.kind === 'sent') {
      await em.query(
        `UPDATE campaign_recipients SET status = 'sent', job_id = $3, sent_at = $4, error = NULL,
                updated_at = now()
          WHERE campaign_id = $1 AND contact_id = $2`,
        [campaignId, contactId, o.jobId, now],
      );
    } else if (o.kind === 'held') {
      await em.query(
        `UPDATE campaign_recipients SET status = 'held', next_attempt_at = $3, error = $4,
                updated_at = now()
          WHERE campaign_id = $1 AND contact_id = $2`,
        [campaignId, contactId, o.until, o.error],
      );
    } else {
      await em.query(
        `UPDATE campaign_recipients SET status = 'failed', error = $3, updated_at = now()
          WHERE campaign_id = $1 AND contact_id = $2`,
        [campaignId, contactId, o.error],
      );
    }
  }

  /**
   * Marks the campaign sent when no recipient is pending or held, and stores its campaign.sent
   * event in the same transaction. True when it did.
   */
  private async completeIfDone(
    em: EntityManager,
    campaign: CampaignRow,
    now: Date,
  ): Promise<boolean> {
    const rows: {
      recipient_count: number;
      sent_count: number;
      failed_count: number;
    }[] = await em.query(
      `WITH done AS (
       UPDATE campaigns SET status = 'sent', completed_at = $2, updated_at = now()
        WHERE id = $1 AND status = 'sending'
          AND NOT EXISTS (SELECT 1 FROM campaign_recipients
                           WHERE campaign_id = $1 AND status IN ('pending','held'))
       RETURNING recipient_count, sent_count, failed_count)
       SELECT * FROM done`,
      [campaign.id, now],
    );
    if (!rows.length) return false;
    const c = rows[0];
    this.logger.log({
      msg: 'campaign sent',
      campaignId: campaign.id,
      organizationId: campaign.organization_id,
      sentCount: c.sent_count,
      failedCount: c.failed_count,
    });
    await this.events.emit(em, campaign.organization_id, [
      {
        type: 'campaign.sent',
        data: {
          campaign: {
            id: campaign.id,
            name: campaign.name,
            recipientCount: c.recipient_count,
            sentCount: c.sent_count,
            failedCount: c.failed_count,
          },
        },
      },
    ]);
    return true;
  }
}
