// Bodies and query of the contact routes.
import { Type } from 'class-transformer';
import {
  IsDefined,
  ArrayMaxSize,
  IsArray,
  IsDate,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  MaxLength,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { CONTACT_CHANNELS, CONTACT_SORT_FIELDS, CONTACT_STATUSES, SORT_ORDERS } from '@app/domain';
import type { ContactChannel, ContactSortField, ContactStatus, SortOrder } from '@app/domain';
import {
  CreateEmailDto,
  CreateImessageDto,
  CreatePushDto,
  CreateSmsDto,
  CreateTelegramDto,
  CreateWhatsappDto,
  OptionalValue,
  Trim,
} from './contact-channels.dto';
import { PageQueryDto } from '../http/page-query.dto';
import { ToDate } from '../http/validation';
import { ContactRule, TagNames } from './contact-rules.decorators';

/** GET /contacts query (§5), in the spec's order. */
export class ListContactsQueryDto extends PageQueryDto {
  /** Name fragment, or an exact email address or phone number. */
  @IsOptional()
  @Trim()
  @IsString()
  @MinLength(1)
  @MaxLength(320)
  search?: string;

  @IsOptional()
  @IsIn(CONTACT_STATUSES)
  status?: ContactStatus;

  @IsOptional()
  @IsIn(CONTACT_CHANNELS)
  channel?: ContactChannel;

  @IsOptional()
  @IsIn(CONTACT_SORT_FIELDS)
  sortBy?: ContactSortField;

  @IsOptional()
  @IsIn(SORT_ORDERS)
  sortOrder?: SortOrder;
}

export class UpdateContactDto {
  @IsOptional()
  @IsString()
  @ContactRule('name')
  firstName?: string | null;

  @IsOptional()
  @IsString()
  @ContactRule('name')
  lastName?: string | null;

  @IsOptional()
  @IsString()
  @ContactRule('displayName')
  displayName?: string | null;

  /** IANA zone name, e.g. Europe/Paris. */
  @IsOptional()
  @ContactRule('timezone')
  timezone?: string | null;

  /** Language code, e.g. en or pt-BR. */
  @IsOptional()
  @ContactRule('language')
  language?: string | null;

  @IsOptional()
  @ContactRule('status')
  status?: ContactStatus | null;

  @IsOptional()
  @IsObject()
  customFields?: Record<string, unknown> | null;

  @IsOptional()
  @IsString()
  @ContactRule('notes')
  notes?: string | null;

  @IsOptional()
  @ToDate()
  @IsDate()
  lastActivityAt?: Date | null;
}

export class CreateContactDto extends UpdateContactDto {
  /** Tag names; tags that do not exist yet are created. */
  @OptionalValue()
  @IsArray()
  @TagNames()
  tags?: string[];

  @OptionalValue()
  @IsArray()
  @ArrayMaxSize(50)
  // Without it an item that is itself an array passes ValidateNested and reaches the service.
  @IsObject({ each: true })
  @ValidateNested({ each: true })
  @Type(() => CreateEmailDto)
  emails?: CreateEmailDto[];

  @OptionalValue()
  @IsArray()
  @ArrayMaxSize(50)
  @IsObject({ each: true })
  @ValidateNested({ each: true })
  @Type(() => CreateSmsDto)
  smsNumbers?: CreateSmsDto[];

  @OptionalValue()
  @IsArray()
  @ArrayMaxSize(50)
  @IsObject({ each: true })
  @ValidateNested({ each: true })
  @Type(() => CreateWhatsappDto)
  whatsappAccounts?: CreateWhatsappDto[];

  @OptionalValue()
  @IsArray()
  @ArrayMaxSize(50)
  @IsObject({ each: true })
  @ValidateNested({ each: true })
  @Type(() => CreateTelegramDto)
  telegramAccounts?: CreateTelegramDto[];

  @OptionalValue()
  @IsArray()
  @ArrayMaxSize(50)
  @IsObject({ each: true })
  @ValidateNested({ each: true })
  @Type(() => CreateImessageDto)
  imessageAccounts?: CreateImessageDto[];

  @OptionalValue()
  @IsArray()
  @ArrayMaxSize(50)
  @IsObject({ each: true })
  @ValidateNested({ each: true })
  @Type(() => CreatePushDto)
  pushNotifications?: CreatePushDto[];

  /** Lists the new contact is subscribed to. */
  @OptionalValue()
  @IsArray()
  @ArrayMaxSize(100)
  @IsUUID('all', { each: true })
  listIds?: string[];
}

export class AddTagsDto {
  @IsDefined()
  @IsArray()
  @TagNames()
  names: string[];
}
