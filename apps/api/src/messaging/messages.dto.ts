// The message log's query and path parameters and its response mappers.
import { ArgumentMetadata, Injectable, PipeTransform } from '@nestjs/common';
import { IsDate, IsIn, IsOptional, IsString, IsUUID, MaxLength, MinLength } from 'class-validator';
import { MESSAGE_CHANNELS, MESSAGE_STATUSES, ValidationFailedError } from '@app/domain';
import type { MessageChannel, MessageLogEntry, MessageListEntry, MessageStatus } from '@app/domain';
import { PageQueryDto } from '../http/page-query.dto';
import { ToDate } from '../http/validation';

export class ListMessagesQueryDto extends PageQueryDto {
  /**
   * Message status: queued, deferred, sent (accepted by an SMS or push provider, no receipt yet),
   * delivered, partially_delivered, bounced, failed, suppressed.
   */
  @IsOptional()
  @IsIn(MESSAGE_STATUSES)
  status?: MessageStatus;

  /** Messages of one channel: email, sms, push, whatsapp, telegram, imessage. */
  @IsOptional()
  @IsIn(MESSAGE_CHANNELS)
  channel?: MessageChannel;

  /** Messages with this exact recipient: an email address, a phone number or a device token. */
  @IsOptional()
  @IsString()
  @MinLength(3)
  @MaxLength(4096)
  recipient?: string;

  @IsOptional()
  @IsUUID()
  campaignId?: string;

  /** Created at or after (ISO 8601). */
  @IsOptional()
  @ToDate()
  @IsDate()
  from?: Date;

  /** Created at or before (ISO 8601). */
  @IsOptional()
  @ToDate()
  @IsDate()
  to?: Date;
}

/** Longest jobId looked up; every id the API issues (`job_` + ULID) is far shorter. */
export const MAX_JOB_ID_LENGTH = 255;

/**
 * Any jobId of 1-255 characters is looked up, so an unknown one is a 404 (§16); a longer one, or
 * one with a NUL character (PostgreSQL text cannot hold it), is a 422.
 */
@Injectable()
export class JobIdParamPipe implements PipeTransform<string, string> {
  transform(value: string, meta: ArgumentMetadata): string {
    const field = meta.data ?? 'jobId';
    if (value.length > MAX_JOB_ID_LENGTH) {
      throw ValidationFailedError.field(
        field,
        'maxLength',
        `${field} must be at most ${MAX_JOB_ID_LENGTH} characters`,
      );
    }
    if (value.includes('\0')) {
      throw ValidationFailedError.field(field, 'type', `${field} must not contain NUL characters`);
    }
    return value;
  }
}

export const jobIdParam = new JobIdParamPipe();

function summaryFields(e: MessageListEntry) {
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

/** One message of GET /messages (the Message of the spec without attempts and events). */
export function toMessageListItem(e: MessageListEntry) {
  return summaryFields(e);
}

/** The Message of the spec (GET /messages/{jobId}). */
export function toMessageResponse(e: MessageLogEntry) {
  const recipients = e.summary.recipients;
  return {
    ...summaryFields(e),
    deliveryAttempts: e.attempts.map((a) => ({
      recipient: recipients[a.recipientIdx] ?? null,
      status: a.status,
      smtpCode: a.smtpCode,
      smtpMessage: a.smtpMessage,
      mxHost: a.mxHost,
      outboundIp: a.outboundIp,
      retryCount: a.retryCount,
      attemptedAt: a.attemptedAt,
      // Beyond email: the provider's own error code and the SMS segments billed.
      ...(e.summary.channel !== 'email' && {
        providerCode: a.providerCode ?? null,
        segments: a.segments ?? null,
      }),
    })),
    engagementEvents: e.events.map((ev) => ({
      type: ev.type,
      recipient: recipients[ev.recipientIndex] ?? null,
      userAgent: ev.userAgent,
      remoteIp: ev.remoteIp,
      occurredAt: ev.occurredAt,
      ...(ev.url ? { url: ev.url } : {}),
    })),
  };
}
