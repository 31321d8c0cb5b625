// Response shapes of the campaign routes (§11, §17): a campaign, its detail by channel, its reach.
import { ApiProperty, getSchemaPath } from '@nestjs/swagger';
import { CAMPAIGN_STATUSES, clockOf } from '@app/domain';
import type { Campaign, CampaignReach, ChannelSummary } from '@app/domain';
import { CampaignContentDto, QuietHoursDto } from './campaigns.dto';
import { CHANNEL } from '../http/openapi-enums';

const COUNTS = { type: 'object', additionalProperties: { type: 'integer' } } as const;

/** A campaign (§11, §17). */
export class CampaignResponse {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ format: 'uuid' })
  organizationId: string;

  name: string;

  /** The first of `channels`. */
  @ApiProperty(CHANNEL)
  channel: string;

  /** The order each contact is tried on: it gets one message, on the first it can be reached on. */
  @ApiProperty({ ...CHANNEL, isArray: true })
  channels: string[];

  /** What the campaign sends on each channel beyond email. */
  content: CampaignContentDto;

  /** Email's subject, sender and body (null when the campaign does not go out on email). */
  @ApiProperty({ type: String, nullable: true })
  subject: string | null;

  @ApiProperty({ type: String, nullable: true })
  html: string | null;

  @ApiProperty({ type: String, nullable: true })
  text: string | null;

  @ApiProperty({ type: String, nullable: true })
  from: string | null;

  @ApiProperty({ type: String, format: 'uuid', nullable: true })
  listId: string | null;

  @ApiProperty({ type: String, format: 'uuid', nullable: true })
  segmentId: string | null;

  @ApiProperty({ enum: CAMPAIGN_STATUSES })
  status: string;

  recipientCount: number;

  sentCount: number;

  failedCount: number;

  /** Contacts of the audience reachable on none of the channels. */
  unreachableCount: number;

  @ApiProperty({ type: QuietHoursDto, nullable: true })
  quietHours: QuietHoursDto | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  startedAt: Date | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  completedAt: Date | null;

  @ApiProperty({ type: String, format: 'date-time' })
  createdAt: Date;

  @ApiProperty({ type: String, format: 'date-time' })
  updatedAt: Date;
}

/** One channel of a campaign: its recipients by fan-out status, its messages by delivery status. */
export class CampaignChannelSummaryResponse {
  recipients: number;

  pending: number;

  held: number;

  sent: number;

  failed: number;

  /** The channel's messages in the log, by status. */
  @ApiProperty(COUNTS)
  delivery: Record<string, number>;
}

/** A campaign with what became of its messages, in all and by channel. */
export class CampaignDetailResponse extends CampaignResponse {
  /** The campaign's messages in the log, by status. */
  @ApiProperty(COUNTS)
  delivery: Record<string, number>;

  @ApiProperty({
    type: 'object',
    additionalProperties: { $ref: getSchemaPath(CampaignChannelSummaryResponse) },
  })
  byChannel: Record<string, CampaignChannelSummaryResponse>;
}

/** Who a campaign would reach now, by channel. */
export class CampaignReachResponse {
  /** Contacts of the audience. */
  total: number;

  /** Contacts each channel would carry the message to. */
  @ApiProperty(COUNTS)
  byChannel: Record<string, number>;

  /** Contacts reachable on none of the channels. */
  unreachable: number;
}

export function toCampaignResponse(c: Campaign): CampaignResponse {
  return {
    id: c.id,
    organizationId: c.organizationId,
    name: c.name,
    channel: c.channel,
    channels: c.channels,
    content: c.content,
    subject: c.subject,
    html: c.html,
    text: c.text,
    from: c.from,
    listId: c.listId,
    segmentId: c.segmentId,
    status: c.status,
    recipientCount: c.recipientCount,
    sentCount: c.sentCount,
    failedCount: c.failedCount,
    unreachableCount: c.unreachableCount,
    quietHours:
      c.quietStart === null || c.quietEnd === null
        ? null
        : { start: clockOf(c.quietStart), end: clockOf(c.quietEnd) },
    startedAt: c.startedAt,
    completedAt: c.completedAt,
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
  };
}

/** The campaign with its messages by status, in all and by channel (GET /campaigns/{id}). */
export function toCampaignDetailResponse(
  c: Campaign,
  delivery: ChannelSummary['delivery'],
  byChannel: Record<string, ChannelSummary>,
): CampaignDetailResponse {
  return { ...toCampaignResponse(c), delivery, byChannel };
}

export function toCampaignReachResponse(r: CampaignReach): CampaignReachResponse {
  return { total: r.total, byChannel: r.byChannel, unreachable: r.unreachable };
}
