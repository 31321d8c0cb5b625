// Who a campaign reaches (a list's subscribers or a segment's contacts), materialised with the
// channel each contact is reached on.
import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import type { OrgId } from '../common/org-id';
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
    orgId: OrgId,
    target: CampaignTarget,
    em?: EntityManager,
  ): Promise<void> {
    if (target.listId) {
      if (!(await this.campaigns.listExists(orgId, target.listId, em))) {
        throw new NotFoundError('Contact list');
      }
      return;
    }
    // 404 `Segment not found` when it is not the organization's.
    await this.segments.get(orgId, target.segmentId!);
  }

  /** The channels of a campaign that names none: its list's preferred channels, else email. */
  async defaultChannels(orgId: OrgId, target: CampaignTarget): Promise<CampaignChannel[]> {
    const preferred = target.listId
      ? await this.campaigns.preferredChannels(orgId, target.listId)
      : [];
    const channels = preferred.filter((c): c is CampaignChannel =>
      (CAMPAIGN_CHANNELS as readonly string[]).includes(c),
    );
    return channels.length ? channels : ['email'];
  }

  /**
   * How many contacts of the target each channel of `channels` would reach if the campaign were
   * sent now, and how many none would: a count, nothing is sent or stored. A segment is counted
   * batch by batch, one statement each.
   */
  async reach(
    orgId: OrgId,
    target: CampaignTarget,
    channels: CampaignChannel[],
  ): Promise<CampaignReach> {
    const byChannel = Object.fromEntries(channels.map((c) => [c, 0])) as Record<string, number>;
    const reach: CampaignReach = { total: 0, byChannel, unreachable: 0 };
    for await (const audience of this.audienceOf(orgId, target)) {
      for (const r of await this.campaigns.reach(orgId, audience, channels)) {
        if (r.channel) byChannel[r.channel] += r.n;
        else reach.unreachable += r.n;
        reach.total += r.n;
      }
    }
    return reach;
  }

  /**
   * The target as audiences of one statement each: the list whole, or the segment's contacts in
   * the batches the segments area hands out. 404 when the segment is not the organization's.
   */
  private async *audienceOf(orgId: OrgId, target: CampaignTarget): AsyncGenerator<Audience> {
    if (target.listId) {
      yield { listId: target.listId };
      return;
    }
    for await (const contactIds of await this.segments.contactIdBatches(orgId, target.segmentId!)) {
      yield { contactIds };
    }
  }

  /**
   * Inserts one recipient per audience member, on the first of `channels` it can be reached on
   * (else `unreachable`), and answers how many the campaign reaches and does not. Idempotent. A
   * dynamic segment's rules are evaluated now; a segment's contacts are inserted batch by batch,
   * one statement each.
   */
  async materialise(
    orgId: OrgId,
    campaignId: string,
    target: CampaignTarget,
    channels: CampaignChannel[],
    now: Date,
    em: EntityManager,
  ): Promise<{ reachable: number; unreachable: number }> {
    for await (const audience of this.audienceOf(orgId, target)) {
      await this.campaigns.addRecipients(orgId, campaignId, audience, channels, now, em);
    }
    return this.campaigns.recipientCounts(orgId, campaignId, em);
  }
}
