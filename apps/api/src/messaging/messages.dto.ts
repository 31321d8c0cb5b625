// The message log's query and path parameters.
import { ArgumentMetadata, Injectable, PipeTransform } from '@nestjs/common';
import { IsDate, IsIn, IsOptional, IsString, IsUUID, MaxLength, MinLength } from 'class-validator';
import { MESSAGE_CHANNELS, MESSAGE_STATUSES, ValidationFailedError } from '@app/domain';
import type { MessageChannel, MessageStatus } from '@app/domain';
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
