// Who a campaign reaches (a list's subscribers or a segment's members), materialised with the
// channel each contact is reached on.
import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { NotFoundError } from '../errors/domain-errors';
import { SegmentsService } from '../segments/segments.service';
import { Audience, CampaignAudienceRepository } from './campaign-audience.repository';
import { CAMPAIGN_CHANNELS, CampaignChannel } from './campaign.entity';

/** Who a campaign would reach, by channel, before it is sent. */
export interface CampaignReach {
  /** Contacts of the audience. */
  total: number;
  /** Contacts each channel would carry the message to (every channel of the order is listed). */
  byChannel: Record<string, number>;
  /** Contacts reachable on none of the channels. */
  unreachable: number;
}

export interface CampaignTarget {
  listId: string | null;
  segmentId: string | null;
}

@Injectable()
export class CampaignAudience {
  constructor(
    private readonly campaigns: CampaignAudienceRepository,
    private readonly segments: SegmentsService,
  ) {}

  /** 404 when the list or segment is not one of the organization's. */
  async assertTargetExists(
    organizationId: string,
    target: CampaignTarget,
    em?: EntityManager,
  ): Promise<void> {
    if (target.listId) {
      if (!(await this.campaigns.listExists(organizationId, target.listId, em))) {
        throw new NotFoundError('Contact list');
      }
      return;
    }
    // 404 `Segment not found` when it is not the organization's.
    await this.segments.contactSelection(organizationId, target.segmentId!);
  }

  /** The channels of a campaign that names none: its list's preferred channels, else email. */
  async defaultChannels(
    organizationId: string,
    target: CampaignTarget,
  ): Promise<CampaignChannel[]> {
    const preferred = target.listId
      ? await this.campaigns.preferredChannels(organizationId, target.listId)
      : [];
    const channels = preferred.filter((c): c is CampaignChannel =>
      (CAMPAIGN_CHANNELS as readonly string[]).includes(c),
    );
    return channels.length ? channels : ['email'];
  }

  /**
   * How many contacts of the target each channel of `channels` would reach if the campaign were
   * sent now, and how many none would: a count, nothing is sent or stored.
   */
  async reach(
    organizationId: string,
    target: CampaignTarget,
    channels: CampaignChannel[],
  ): Promise<CampaignReach> {
    const rows = await this.campaigns.reach(
      organizationId,
      await this.audienceOf(organizationId, target),
      channels,
    );
    const byChannel = Object.fromEntries(channels.map((c) => [c, 0])) as Record<string, number>;
    let unreachable = 0;
    for (const r of rows) {
      if (r.channel) byChannel[r.channel] = r.n;
      else unreachable = r.n;
    }
    const total = rows.reduce((n, r) => n + r.n, 0);
    return { total, byChannel, unreachable };
  }

  private async audienceOf(organizationId: string, target: CampaignTarget): Promise<Audience> {
    return target.listId
      ? { listId: target.listId }
      : { selection: await this.segments.contactSelection(organizationId, target.segmentId!) };
  }

  /**
   * Inserts one recipient per audience member, on the first of `channels` it can be reached on
   * (else `unreachable`), and answers how many the campaign reaches and does not. Idempotent. A
   * dynamic segment's rules are evaluated now.
   */
  async materialise(
    organizationId: string,
    campaignId: string,
    target: CampaignTarget,
    channels: CampaignChannel[],
    now: Date,
    em: EntityManager,
  ): Promise<{ reachable: number; unreachable: number }> {
    const audience = await this.audienceOf(organizationId, target);
    await this.campaigns.addRecipients(organizationId, campaignId, audience, channels, now, em);
    return this.campaigns.recipientCounts(organizationId, campaignId, em);
  }
}
