// Who a campaign reaches (a list's subscribers or a segment's members), materialised.
import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { NotFoundError } from '../errors/domain-errors';
import { SegmentsService } from '../segments/segments.service';
import { CampaignRepository } from './campaign.repository';

export interface CampaignTarget {
  listId: string | null;
  segmentId: string | null;
}

@Injectable()
export class CampaignAudience {
  constructor(
    private readonly campaigns: CampaignRepository,
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

  /**
   * Inserts one pending recipient per audience member with an email and returns how many the
   * campaign has. The contact's primary email is used; a contact with emails but none flagged
   * primary falls back to its oldest one. Idempotent. A dynamic segment's rules are evaluated now.
   */
  async materialise(
    organizationId: string,
    campaignId: string,
    target: CampaignTarget,
    now: Date,
    em: EntityManager,
  ): Promise<number> {
    const audience = target.listId
      ? { listId: target.listId }
      : { selection: await this.segments.contactSelection(organizationId, target.segmentId!) };
    await this.campaigns.addRecipients(organizationId, campaignId, audience, now, em);
    return this.campaigns.recipientCount(organizationId, campaignId, em);
  }
}
