// All SQL of conversions: the campaign and contact they name, and the insert once per order id.
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { OrgId } from '../common/org-id';
import { query, sql } from '../database/sql';
import { Conversion } from './conversion.entity';

export interface NewConversion {
  campaignId: string;
  contactId: string | null;
  orderId: string;
  revenue: number;
  currency: string;
  channel: string;
  occurredAt: Date;
}

@Injectable()
export class ConversionRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /**
   * The channel a conversion of the campaign is attributed to by default: the one the contact's
   * message of the campaign went out on, else the campaign's first; null when there is no such
   * campaign.
   */
  async campaignChannel(
    organizationId: OrgId,
    campaignId: string,
    contactId: string | null,
  ): Promise<string | null> {
    const [row] = await query<{ channel: string }>(
      this.ds,
      sql`SELECT coalesce((SELECT r.channel FROM campaign_recipients r
                            WHERE r.organization_id = ${organizationId} AND r.campaign_id = c.id
                              AND r.contact_id = ${contactId}::uuid),
                          c.channel) AS channel
            FROM campaigns c WHERE c.organization_id = ${organizationId} AND c.id = ${campaignId}`,
    );
    return row?.channel ?? null;
  }

  async contactExists(organizationId: OrgId, contactId: string): Promise<boolean> {
    const rows = await query(
      this.ds,
      sql`SELECT 1 FROM contacts WHERE organization_id = ${organizationId} AND id = ${contactId}`,
    );
    return rows.length > 0;
  }

  /** Inserts the conversion unless its order id is recorded already; true when it did. */
  async insertOnce(organizationId: OrgId, c: NewConversion): Promise<boolean> {
    const inserted = await query(
      this.ds,
      sql`INSERT INTO conversions
                 (organization_id, campaign_id, contact_id, order_id, revenue, currency, channel,
                  occurred_at)
          VALUES (${organizationId}, ${c.campaignId}, ${c.contactId}, ${c.orderId}, ${c.revenue},
                  ${c.currency}, ${c.channel}, ${c.occurredAt})
          ON CONFLICT (organization_id, order_id) DO NOTHING
          RETURNING id`,
    );
    return inserted.length === 1;
  }

  findByOrder(organizationId: OrgId, orderId: string): Promise<Conversion> {
    return this.ds.manager.findOneByOrFail(Conversion, { organizationId, orderId });
  }
}
