// Response shapes of the message log (§8, §12.2): a message of GET /messages, and the Message of
// GET /messages/{jobId} with its delivery attempts and engagement events.
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ATTEMPT_STATUSES, ENGAGEMENT_EVENT_TYPES, MESSAGE_CHANNELS } from '@app/domain';
import type {
  AttemptRecord,
  EngagementEventRow,
  MessageChannel,
  MessageListEntry,
  MessageLogEntry,
} from '@app/domain';
import { MESSAGE_STATUS } from '../http/openapi-enums';

/** One message of GET /messages (the Message of the spec without attempts and events). */
export class MessageSummaryResponse {
  /** `job_` and a ULID. */
  jobId: string;

  @ApiProperty({ enum: MESSAGE_CHANNELS })
  channel: string;

  /** The Message-ID header (email); the platform's own id on other channels. */
  messageId: string;

  /** The From address, sender number or provider account name. */
  senderAddress: string;

  @ApiProperty({ type: String, format: 'uuid', nullable: true })
  campaignId: string | null;

  @ApiProperty({ type: String, format: 'uuid', nullable: true })
  contactId: string | null;

  recipients: string[];

  @ApiProperty(MESSAGE_STATUS)
  status: string;

  tags: string[];

  @ApiProperty({ type: String, format: 'date-time' })
  createdAt: Date;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  completedAt: Date | null;

  /** Days the log keeps the message (the organization's retention). */
  retentionDays: number;
}

/** One delivery attempt to one recipient. */
export class DeliveryAttemptResponse {
  @ApiProperty({ type: String, nullable: true })
  recipient: string | null;

  @ApiProperty({ enum: ATTEMPT_STATUSES })
  status: string;

  @ApiProperty({ type: Number, nullable: true })
  smtpCode: number | null;

  @ApiProperty({ type: String, nullable: true })
  smtpMessage: string | null;

  @ApiProperty({ type: String, nullable: true })
  mxHost: string | null;

  @ApiProperty({ type: String, nullable: true })
  outboundIp: string | null;

  retryCount: number;

  @ApiProperty({ type: String, format: 'date-time' })
  attemptedAt: Date;

  /** Beyond email only: the provider's own error code. */
  @ApiPropertyOptional({ type: String, nullable: true })
  providerCode?: string | null;

  /** Beyond email only: the SMS segments billed. */
  @ApiPropertyOptional({ type: Number, nullable: true })
  segments?: number | null;
}

/** An open, click, unsubscribe or complaint of one recipient. */
export class EngagementEventResponse {
  @ApiProperty({ enum: ENGAGEMENT_EVENT_TYPES })
  type: string;

  @ApiProperty({ type: String, nullable: true })
  recipient: string | null;

  @ApiProperty({ type: String, nullable: true })
  userAgent: string | null;

  @ApiProperty({ type: String, nullable: true })
  remoteIp: string | null;

  @ApiProperty({ type: String, format: 'date-time' })
  occurredAt: Date;

  /** Clicks only: the link's target. */
  @ApiPropertyOptional()
  url?: string;
}

/** The Message of the spec: attempts and events each oldest first, at most 500. */
export class MessageResponse extends MessageSummaryResponse {
  @ApiProperty({ type: [DeliveryAttemptResponse] })
  deliveryAttempts: DeliveryAttemptResponse[];

  @ApiProperty({ type: [EngagementEventResponse] })
  engagementEvents: EngagementEventResponse[];
}

export function toMessageSummaryResponse(e: MessageListEntry): MessageSummaryResponse {
  const s = e.summary;
  return {
    jobId: s.jobId,
    channel: s.channel,
    messageId: s.messageId,
    senderAddress: s.senderAddress,
    campaignId: s.campaignId,
    contactId: s.contactId,
    recipients: s.recipients,
    status: s.status,
    tags: s.tags,
    createdAt: s.createdAt,
    completedAt: s.completedAt,
    retentionDays: e.retentionDays,
  };
}

export function toDeliveryAttemptResponse(
  a: AttemptRecord,
  recipients: string[],
  channel: MessageChannel,
): DeliveryAttemptResponse {
  return {
    recipient: recipients[a.recipientIdx] ?? null,
    status: a.status,
    smtpCode: a.smtpCode,
    smtpMessage: a.smtpMessage,
    mxHost: a.mxHost,
    outboundIp: a.outboundIp,
    retryCount: a.retryCount,
    attemptedAt: a.attemptedAt,
    ...(channel !== 'email' && {
      providerCode: a.providerCode ?? null,
      segments: a.segments ?? null,
    }),
  };
}

export function toEngagementEventResponse(
  ev: EngagementEventRow,
  recipients: string[],
): EngagementEventResponse {
  return {
    type: ev.type,
    recipient: recipients[ev.recipientIndex] ?? null,
    userAgent: ev.userAgent,
    remoteIp: ev.remoteIp,
    occurredAt: ev.occurredAt,
    ...(ev.url ? { url: ev.url } : {}),
  };
}

export function toMessageResponse(e: MessageLogEntry): MessageResponse {
  const { recipients, channel } = e.summary;
  return {
    ...toMessageSummaryResponse(e),
    deliveryAttempts: e.attempts.map((a) => toDeliveryAttemptResponse(a, recipients, channel)),
    engagementEvents: e.events.map((ev) => toEngagementEventResponse(ev, recipients)),
  };
}
