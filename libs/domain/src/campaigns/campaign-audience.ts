// Who a campaign reaches (a list's subscribers or a segment's members), materialised with the
// channel each contact is reached on.
import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { NotFoundError } from '../errors/domain-errors';
import { SegmentsService } from '../segments/segments.service';
import { CampaignAudienceRepository } from './campaign-audience.repository';
import { CAMPAIGN_CHANNELS, CampaignChannel } from './campaign.entity';

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
    const audience = target.listId
      ? { listId: target.listId }
      : { selection: await this.segments.contactSelection(organizationId, target.segmentId!) };
    await this.campaigns.addRecipients(organizationId, campaignId, audience, channels, now, em);
    return this.campaigns.recipientCounts(organizationId, campaignId, em);
  }
}
