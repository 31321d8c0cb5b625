// Conversions attributed to campaigns (§11): idempotent on (organization, orderId).
import { Injectable } from '@nestjs/common';
import { Clock } from '../common/clock';
import type { OrgId } from '../common/org-id';
import { NotFoundError } from '../errors/domain-errors';
import { Conversion } from './conversion.entity';
import { ConversionRepository } from './conversion.repository';

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
    private readonly conversions: ConversionRepository,
    private readonly clock: Clock,
  ) {}

  /**
   * Records a conversion once per orderId. The campaign (and the contact, when given) must be the
   * organization's, else 404. A repeated orderId stores nothing and returns the first record,
   * whatever the repeat carried.
   */
  async record(organizationId: OrgId, input: RecordConversionInput): Promise<RecordedConversion> {
    const channel = await this.conversions.campaignChannel(
      organizationId,
      input.campaignId,
      input.contactId ?? null,
    );
    if (channel === null) throw new NotFoundError('Campaign');
    if (input.contactId && !(await this.conversions.contactExists(organizationId, input.contactId)))
      throw new NotFoundError('Contact');
    const created = await this.conversions.insertOnce(organizationId, {
      campaignId: input.campaignId,
      contactId: input.contactId ?? null,
      orderId: input.orderId,
      revenue: input.revenue,
      currency: (input.currency ?? 'USD').toUpperCase(),
      channel: input.channel ?? channel,
      occurredAt: input.occurredAt ?? this.clock.now(),
    });
    const conversion = await this.conversions.findByOrder(organizationId, input.orderId);
    return { conversion, created };
  }
}
