import { ArgumentMetadata, Injectable, PipeTransform } from '@nestjs/common';
import { Type } from 'class-transformer';
import { IsDate, IsEmail, IsIn, IsInt, IsOptional, IsUUID, Max, Min } from 'class-validator';
import { MAX_PAGE, MESSAGE_STATUSES, ValidationFailedError } from '@app/domain';
import type { MessageLogEntry, MessageListEntry, MessageStatus } from '@app/domain';
import { ToDate } from '../http/validation';

export class ListMessagesQueryDto {
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(MAX_PAGE)
  page?: number;

  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;

  /** Message status: queued, deferred, delivered, partially_delivered, bounced, failed, suppressed. */
  @IsOptional()
  @IsIn(MESSAGE_STATUSES)
  status?: MessageStatus;

  /** Messages with this exact recipient address. */
  @IsOptional()
  @IsEmail()
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

const JOB_ID = /^job_[0-9A-HJKMNP-TV-Z]{26}$/;

/** A jobId path parameter must look like one (`job_` + ULID): else 422, never a query. */
@Injectable()
export class JobIdParamPipe implements PipeTransform<string, string> {
  transform(value: string, meta: ArgumentMetadata): string {
    if (!JOB_ID.test(value)) {
      const field = meta.data ?? 'jobId';
      throw ValidationFailedError.field(field, 'type', `${field} must be job_ followed by a ULID`);
    }
    return value;
  }
}

export const jobIdParam = new JobIdParamPipe();

function summaryFields(e: MessageListEntry) {
  const s = e.summary;
  return {
    jobId: s.jobId,
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
