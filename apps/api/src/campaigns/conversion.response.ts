// Response shape of POST /conversions (§11).
import { ApiProperty } from '@nestjs/swagger';
import { CHANNELS } from '@app/domain';
import type { Conversion } from '@app/domain';

/** A conversion attributed to a campaign. */
export class ConversionResponse {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ format: 'uuid' })
  organizationId: string;

  @ApiProperty({ format: 'uuid' })
  campaignId: string;

  @ApiProperty({ type: String, format: 'uuid', nullable: true })
  contactId: string | null;

  orderId: string;

  /** Amount in the currency's major unit. */
  revenue: number;

  /** ISO 4217 code. */
  currency: string;

  @ApiProperty({ enum: CHANNELS })
  channel: string;

  @ApiProperty({ type: String, format: 'date-time' })
  occurredAt: Date;

  @ApiProperty({ type: String, format: 'date-time' })
  createdAt: Date;
}

export function toConversionResponse(c: Conversion): ConversionResponse {
  return {
    id: c.id,
    organizationId: c.organizationId,
    campaignId: c.campaignId,
    contactId: c.contactId,
    orderId: c.orderId,
    revenue: c.revenue,
    currency: c.currency,
    channel: c.channel,
    occurredAt: c.occurredAt,
    createdAt: c.createdAt,
  };
}
