// Campaign drafts and their lifecycle (§11): draft → sending → sent, or cancelled.
import { InjectQueue } from '@nestjs/bull';
import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Queue } from 'bull';
import { DataSource, EntityManager } from 'typeorm';
import { Clock } from '../common/clock';
import type { OrgId } from '../common/org-id';
import { Page, PageRequest } from '../common/pagination';
import { inTransaction } from '../database/transaction';
import {
  CampaignNotSendableError,
  ConflictError,
  NotFoundError,
  ValidationFailedError,
} from '../errors/domain-errors';
import { parseMailbox } from '../messaging/address';
import { MESSAGE_STATUSES, MessageStatus } from '../messaging/message.types';
import { JOBS, KickCampaignJob, QUEUES } from '../queues/jobs';
import { SenderPolicy } from '../sending-domains/sender-policy';
import { CampaignAudience, CampaignReach } from './campaign-audience';
import { minutesOf } from './quiet-hours';
import { Campaign, CampaignChannel, CampaignContent, CampaignStatus } from './campaign.entity';
import { CampaignDelivery, CampaignRepository } from './campaign.repository';

export interface CampaignContentInput {
  name?: string;
  /** The first channel alone, when `channels` is not given. */
  channel?: CampaignChannel;
  channels?: CampaignChannel[];
  content?: CampaignContent;
  /** Daily quiet hours in each contact's time zone (`HH:MM`); null removes them. */
  quietHours?: { start: string; end: string } | null;
  subject?: string;
  html?: string | null;
  text?: string | null;
  from?: string;
  listId?: string;
  segmentId?: string;
}

export type CreateCampaignInput = CampaignContentInput & { name: string };

/** One channel of a campaign: its recipients by fan-out status, its messages by delivery status. */
export interface ChannelSummary {
  recipients: number;
  pending: number;
  held: number;
  sent: number;
  failed: number;
  delivery: CampaignDelivery;
}

export interface CampaignListQuery extends PageRequest {
  status?: CampaignStatus;
}

@Injectable()
export class CampaignService {
  private readonly logger = new Logger(CampaignService.name);

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    @InjectQueue(QUEUES.campaigns) private readonly queue: Queue,
    private readonly campaigns: CampaignRepository,
    private readonly audience: CampaignAudience,
    private readonly clock: Clock,
    private readonly senders: SenderPolicy,
  ) {}

  async list(organizationId: OrgId, q: CampaignListQuery): Promise<Page<Campaign>> {
    const [items, total] = await this.campaigns.list(organizationId, q);
    return new Page(items, total, { page: q.page, limit: q.limit });
  }

  async get(organizationId: OrgId, id: string, em?: EntityManager): Promise<Campaign> {
    const campaign = await this.campaigns.find(organizationId, id, { em });
    if (!campaign) throw new NotFoundError('Campaign');
    return campaign;
  }

  /**
   * What became of the campaign's messages (§8 statuses): handed over is not delivered, so the
   * campaign view shows delivered, deferred, bounced and failed beside sentCount. Counted from the
   * message log, so messages past the organization's log retention are no longer counted.
   */
  async delivery(organizationId: OrgId, id: string): Promise<CampaignDelivery> {
    return this.campaigns.deliveryCounts(organizationId, id);
  }

  /**
   * A draft. Its channels are those given, else its list's preferred channels, else email; each
   * needs its content (email: subject, from, and html or text).
   */
  /**
   * The campaign by channel: its recipients on each (by fan-out status) and their messages still
   * in the log (by delivery status).
   */
  async byChannel(organizationId: OrgId, id: string): Promise<Record<string, ChannelSummary>> {
    const { recipients, messages } = await this.campaigns.channelCounts(organizationId, id);
    const out: Record<string, ChannelSummary> = {};
    const of = (channel: string) =>
      (out[channel] ??= {
        recipients: 0,
        pending: 0,
        held: 0,
        sent: 0,
        failed: 0,
        delivery: Object.fromEntries(MESSAGE_STATUSES.map((st) => [st, 0])) as CampaignDelivery,
      });
    for (const r of recipients) {
      if (r.status === 'unreachable') continue;
      const c = of(r.channel);
      c.recipients += r.n;
      c[r.status as 'pending' | 'held' | 'sent' | 'failed'] += r.n;
    }
    for (const m of messages) of(m.channel).delivery[m.status as MessageStatus] += m.n;
    return out;
  }

  async create(organizationId: OrgId, input: CreateCampaignInput): Promise<Campaign> {
    const target = this.target(input, true)!;
    await this.audience.assertTargetExists(organizationId, target);
    const channels =
      input.channels ??
      (input.channel
        ? [input.channel]
        : await this.audience.defaultChannels(organizationId, target));
    const fields: Partial<Campaign> = {
      channels,
      channel: channels[0],
      content: input.content ?? {},
      ...quietColumns(input.quietHours ?? null),
      subject: input.subject ?? null,
      html: input.html ?? null,
      text: input.text ?? null,
      from: input.from ?? null,
    };
    assertSendable(fields);
    const id = await this.campaigns.insert(organizationId, {
      name: input.name,
      ...fields,
      ...target,
      status: 'draft',
      recipientCount: 0,
      sentCount: 0,
      failedCount: 0,
      unreachableCount: 0,
      startedAt: null,
      completedAt: null,
    });
    return this.get(organizationId, id);
  }

  /**
   * Who a campaign to this list or segment, on these channels (default: the list's preferred
   * channels, else email), would reach now, by channel: a count, nothing is sent.
   */
  async reach(
    organizationId: OrgId,
    input: { listId?: string; segmentId?: string; channels?: CampaignChannel[] },
  ): Promise<CampaignReach> {
    const target = this.target(input, true)!;
    await this.audience.assertTargetExists(organizationId, target);
    const channels =
      input.channels ?? (await this.audience.defaultChannels(organizationId, target));
    return this.audience.reach(organizationId, target, channels);
  }

  /** Only a draft can be edited; anything else is history (409 E_BUSINESS_RULE_VIOLATION). */
  async update(organizationId: OrgId, id: string, input: CampaignContentInput): Promise<Campaign> {
    return inTransaction(this.ds, async (em) => {
      const campaign = await this.lockedDraft(em, organizationId, id, 'edited');
      const target = this.target(input, false);
      if (target) await this.audience.assertTargetExists(organizationId, target, em);
      const patch: Partial<Campaign> = { ...(target ?? {}) };
      for (const k of ['name', 'content', 'subject', 'html', 'text', 'from'] as const) {
        if (input[k] !== undefined) (patch as Record<string, unknown>)[k] = input[k];
      }
      if (input.quietHours !== undefined) Object.assign(patch, quietColumns(input.quietHours));
      const channels = input.channels ?? (input.channel ? [input.channel] : undefined);
      if (channels) Object.assign(patch, { channels, channel: channels[0] });
      assertSendable({ ...campaign, ...patch });
      if (Object.keys(patch).length) await this.campaigns.update(organizationId, id, patch, em);
      return this.get(organizationId, id, em);
    });
  }

  /** Only a draft can be deleted: a campaign that sent is the history its conversions refer to. */
  async remove(organizationId: OrgId, id: string): Promise<Campaign> {
    return inTransaction(this.ds, async (em) => {
      const campaign = await this.lockedDraft(em, organizationId, id, 'deleted');
      await this.campaigns.delete(organizationId, id, em);
      return campaign;
    });
  }

  /**
   * Materialises the audience and moves the draft to `sending`, in one transaction; then kicks the
   * fan-out. A campaign that is not a draft, or whose audience has nobody to email, is refused
   * with 409 E_CAMPAIGN_NOT_SENDABLE and left unchanged.
   */
  async send(organizationId: OrgId, id: string): Promise<Campaign> {
    const now = this.clock.now();
    const campaign = await inTransaction(this.ds, async (em) => {
      const c = await this.lock(em, organizationId, id);
      if (c.status !== 'draft') {
        throw new CampaignNotSendableError(`Campaign is ${c.status}; only a draft can be sent`);
      }
      if (c.channels.includes('email') && c.from) {
        await this.senders.assertMaySend(organizationId, parseMailbox(c.from)?.email ?? c.from);
      }
      const target = { listId: c.listId, segmentId: c.segmentId };
      await this.audience.assertTargetExists(organizationId, target, em).catch((e: unknown) => {
        if (e instanceof NotFoundError) {
          throw new CampaignNotSendableError(`Campaign audience no longer exists: ${e.message}`);
        }
        throw e;
      });
      const counts = await this.audience.materialise(
        organizationId,
        c.id,
        target,
        c.channels,
        now,
        em,
      );
      if (counts.reachable === 0) {
        throw new CampaignNotSendableError(
          counts.unreachable
            ? `Campaign has no recipients: none of its ${counts.unreachable} contacts can be reached on ${c.channels.join(', ')}`
            : 'Campaign has no recipients',
        );
      }
      await this.campaigns.update(
        organizationId,
        id,
        {
          status: 'sending',
          recipientCount: counts.reachable,
          unreachableCount: counts.unreachable,
          startedAt: now,
        },
        em,
      );
      return this.get(organizationId, id, em);
    });
    await this.kick(campaign);
    return campaign;
  }

  /**
   * Stops a draft or a sending campaign. Recipients not yet sent are recorded failed with the
   * reason; messages already handed to the send path are not recalled.
   */
  async cancel(organizationId: OrgId, id: string): Promise<Campaign> {
    const now = this.clock.now();
    return inTransaction(this.ds, async (em) => {
      const c = await this.lock(em, organizationId, id);
      if (c.status !== 'draft' && c.status !== 'sending') {
        throw new ConflictError(
          `Campaign is ${c.status}; only a draft or a sending campaign can be cancelled`,
        );
      }
      await this.campaigns.cancel(organizationId, id, now, em);
      return this.get(organizationId, id, em);
    });
  }

  /** Durable first: the rows are committed; a lost kick is covered by the worker's due-row poll. */
  private async kick(campaign: Campaign): Promise<void> {
    const job: KickCampaignJob = {
      campaignId: campaign.id,
      organizationId: campaign.organizationId,
    };
    await this.queue
      .add(JOBS.kickCampaign.name, job, { removeOnComplete: true, removeOnFail: 100 })
      .catch((e: Error) =>
        this.logger.warn({
          msg: 'campaign kick not enqueued; the poll will pick it up',
          err: e.message,
        }),
      );
  }

  private async lock(em: EntityManager, organizationId: OrgId, id: string): Promise<Campaign> {
    const c = await this.campaigns.find(organizationId, id, { em, lock: true });
    if (!c) throw new NotFoundError('Campaign');
    return c;
  }

  private async lockedDraft(
    em: EntityManager,
    organizationId: OrgId,
    id: string,
    verb: string,
  ): Promise<Campaign> {
    const c = await this.lock(em, organizationId, id);
    if (c.status !== 'draft') {
      throw new ConflictError(`Campaign is ${c.status}; only a draft can be ${verb}`);
    }
    return c;
  }

  /** Exactly one of listId and segmentId; on update, giving one replaces the other. */
  private target(
    input: { listId?: string; segmentId?: string },
    required: boolean,
  ): { listId: string | null; segmentId: string | null } | null {
    if (input.listId && input.segmentId) {
      throw ValidationFailedError.field(
        'segmentId',
        'unknown',
        'Give either listId or segmentId, not both',
      );
    }
    if (input.listId) return { listId: input.listId, segmentId: null };
    if (input.segmentId) return { listId: null, segmentId: input.segmentId };
    if (required) {
      throw ValidationFailedError.field('listId', 'required', 'listId or segmentId is required');
    }
    return null;
  }
}

/** Quiet hours as the campaign stores them: minutes of the day (422 naming the field otherwise). */
function quietColumns(q: { start: string; end: string } | null) {
  if (!q) return { quietStart: null, quietEnd: null };
  const start = minutesOf(q.start);
  const end = minutesOf(q.end);
  for (const [field, v] of [['start', start] as const, ['end', end] as const]) {
    if (v === null) {
      throw ValidationFailedError.field(
        `quietHours.${field}`,
        'type',
        `quietHours.${field} must be a time of day, HH:MM (24-hour)`,
      );
    }
  }
  return { quietStart: start, quietEnd: end };
}

/** Every channel of the campaign has its content: 422 naming the first field missing. */
function assertSendable(c: Partial<Campaign>): void {
  const channels = c.channels ?? [];
  const seen = new Set(channels);
  if (!channels.length || seen.size !== channels.length) {
    throw ValidationFailedError.field(
      'channels',
      'type',
      'channels must name one or more channels, each once',
    );
  }
  if (seen.has('email')) {
    for (const field of ['subject', 'from'] as const) {
      if (!c[field]) {
        throw ValidationFailedError.field(field, 'required', `${field} is required for email`);
      }
    }
    if (!c.html && !c.text) {
      throw ValidationFailedError.field('html', 'required', 'html or text is required for email');
    }
  }
  for (const channel of channels) {
    if (channel === 'email') continue;
    const content = c.content?.[channel] as Record<string, unknown> | undefined;
    const given =
      channel === 'push'
        ? content && (content.title || content.body)
        : content && (content.text || (channel === 'whatsapp' && content.template));
    if (!given) {
      throw ValidationFailedError.field(
        `content.${channel}`,
        'required',
        `content.${channel} is required: the campaign goes out on ${channel}`,
      );
    }
  }
}
