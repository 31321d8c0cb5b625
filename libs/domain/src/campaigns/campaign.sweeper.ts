// The fan-out's scan for work across organizations: sending campaigns with a recipient due, or
// with none left to send. Each one found is then run by its own organization's statements
// (campaign.repository.ts).
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { asOrgId, OrgId } from '../common/org-id';
import { empty, query, sql } from '../database/sql';

/** A sending campaign the fan-out has work on. */
export interface DueCampaign {
  organizationId: OrgId;
  id: string;
}

@Injectable()
export class CampaignSweeper {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /**
   * Sending campaigns (of every organization, or only `campaignId`) with a due recipient or none
   * left to send, oldest start first.
   */
  async dueCampaigns(now: Date, campaignId?: string): Promise<DueCampaign[]> {
    const rows = await query<{ organizationId: string; id: string }>(
      this.ds,
      sql`SELECT c.organization_id AS "organizationId", c.id FROM campaigns c
           WHERE c.status = 'sending' ${campaignId ? sql`AND c.id = ${campaignId}` : empty}
             AND (EXISTS (SELECT 1 FROM campaign_recipients r
                           WHERE r.organization_id = c.organization_id AND r.campaign_id = c.id
                             AND r.status IN ('pending','held') AND r.next_attempt_at <= ${now})
                  OR NOT EXISTS (SELECT 1 FROM campaign_recipients r
                                  WHERE r.organization_id = c.organization_id
                                    AND r.campaign_id = c.id AND r.status IN ('pending','held')))
           ORDER BY c.started_at
           LIMIT 100`,
    );
    return rows.map((r) => ({ organizationId: asOrgId(r.organizationId), id: r.id }));
  }
}
