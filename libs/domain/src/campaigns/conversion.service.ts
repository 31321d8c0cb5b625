// Conversions attributed to campaigns (§11): idempotent on (organization, orderId).
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Clock } from '../common/clock';
import { NotFoundError } from '../errors/domain-errors';
import { Conversion } from './conversion.entity';

export interface RecordConversionInput {
  campaignId: string;
  contactId?: string | null;
  orderId: string;
  revenue: number;
  currency?: string;
  channel?: string;
  occurredAt?: Date;
}

export interface RecordedConversion {
  conversion: Conversion;
  /** false when the orderId was already recorded: the stored conversion is returned unchanged. */
  created: boolean;
}

@Injectable()
export class ConversionService {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly clock: Clock,
  ) {}

  /**
   * Records a conversion once per orderId. The campaign (and the contact, when given) must be the
   * organization's, else 404. A repeated orderId stores nothing and returns the first record,
   * whatever the repeat carried.
   */
  async record(organizationId: string, input: RecordConversionInput): Promise<RecordedConversion> {
    const campaigns: { channel: string }[] = await this.ds.query(
      `SELECT channel FROM campaigns WHERE id = $1 AND organization_id = $2`,
      [input.campaignId, organizationId],
    );
    if (!campaigns.length) throw new NotFoundError('Campaign');
    if (input.contactId) {
      const contacts: unknown[] = await this.ds.query(
        `SELECT 1 FROM contacts WHERE id = $1 AND organization_id = $2`,
        [input.contactId, organizationId],
      );
      if (!contacts.length) throw new NotFoundError('Contact');
    }
    const inserted: { id: string }[] = await this.ds.query(
      `INSERT INTO conversions
              (organization_id, campaign_id, contact_id, order_id, revenue, currency, channel, occurred_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (organization_id, order_id) DO NOTHING
       RETURNING id`,
      [
        organizationId,
        input.campaignId,
        input.contactId ?? null,
        input.orderId,
        input.revenue,
        (input.currency ?? 'USD').toUpperCase(),
        input.channel ?? campaigns[0].channel,
        input.occurredAt ?? this.clock.now(),
      ],
    );
    const conversion = await this.ds
      .getRepository(Conversion)
      .findOneByOrFail({ organizationId, orderId: input.orderId });
    return { conversion, created: inserted.length === 1 };
  }
}
