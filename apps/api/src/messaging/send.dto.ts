// The send API's request body (spec POST /api/v1/send), validated at the edge.
import { Type } from 'class-transformer';
import {
  Allow,
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsDefined,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { MailboxInput } from '@app/domain';

const MAILBOX_SCHEMA = {
  oneOf: [
    { type: 'string', example: 'Ann Smith <ann@example.com>' },
    {
      type: 'object',
      properties: { email: { type: 'string', format: 'email' }, name: { type: 'string' } },
      required: ['email'],
    },
  ],
};
const MAILBOX_LIST_SCHEMA = {
  oneOf: [...MAILBOX_SCHEMA.oneOf, { type: 'array', items: MAILBOX_SCHEMA, maxItems: 50 }],
};

export class TrackDto {
  /** Adds an open pixel to the HTML body. */
  @IsOptional()
  @IsBoolean()
  opens?: boolean;

  /** Sends http(s) links through the signed click redirect. */
  @IsOptional()
  @IsBoolean()
  clicks?: boolean;
}

export class AttachmentDto {
  @IsString()
  filename: string;

  /** The file, base64. Attachments total at most 10 MiB. */
  @IsString()
  content: string;

  @IsOptional()
  @IsString()
  contentType?: string;
}

/**
 * POST /api/v1/send (§8). Shapes are checked here; the rules that span fields (addresses,
 * 50 recipients, html or text, header injection, attachment size) are the domain's.
 */
export class SendEmailDto {
  /** `"Name <a@b.c>"`, `a@b.c` or {email, name}. */
  @ApiProperty(MAILBOX_SCHEMA)
  @IsDefined()
  @Allow()
  from: MailboxInput;

  /** One address or an array; To + Cc + Bcc at most 50. */
  @ApiProperty(MAILBOX_LIST_SCHEMA)
  @IsDefined()
  @Allow()
  to: MailboxInput | MailboxInput[];

  @ApiPropertyOptional(MAILBOX_LIST_SCHEMA)
  @IsOptional()
  @Allow()
  cc?: MailboxInput | MailboxInput[];

  @ApiPropertyOptional(MAILBOX_LIST_SCHEMA)
  @IsOptional()
  @Allow()
  bcc?: MailboxInput | MailboxInput[];

  @ApiPropertyOptional(MAILBOX_LIST_SCHEMA)
  @IsOptional()
  @Allow()
  replyTo?: MailboxInput | MailboxInput[];

  @IsDefined()
  @IsString()
  subject: string;

  /** html or text is required. */
  @IsOptional()
  @IsString()
  html?: string;

  @IsOptional()
  @IsString()
  text?: string;

  /** Extra headers; names and values without CR or LF. */
  @IsOptional()
  @IsObject()
  headers?: Record<string, string>;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(20)
  // Without it an item that is itself an array passes ValidateNested and reaches the service.
  @IsObject({ each: true })
  @ValidateNested({ each: true })
  @Type(() => AttachmentDto)
  attachments?: AttachmentDto[];

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(10)
  @IsString({ each: true })
  @MaxLength(100, { each: true })
  tags?: string[];

  @IsOptional()
  @IsUUID()
  campaignId?: string;

  @IsOptional()
  @IsUUID()
  contactId?: string;

  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => TrackDto)
  track?: TrackDto;
}
