import { Type } from 'class-transformer';
import {
  IsDefined,
  ArrayMaxSize,
  IsArray,
  IsDate,
  IsIn,
  IsInt,
  IsLocale,
  IsObject,
  IsOptional,
  IsString,
  IsTimeZone,
  IsUUID,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateNested,
} from 'class-validator';
import {
  CONTACT_CHANNELS,
  CONTACT_LIMITS,
  CONTACT_SORT_FIELDS,
  CONTACT_STATUSES,
  CONTACTS_MAX_LIMIT,
  SORT_ORDERS,
} from '@app/domain';
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

/** GET /contacts query (§5), in the spec's order. */
export class ListContactsQueryDto {
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  page?: number;

  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(CONTACTS_MAX_LIMIT)
  limit?: number;

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
  @MaxLength(CONTACT_LIMITS.name)
  firstName?: string | null;

  @IsOptional()
  @IsString()
  @MaxLength(CONTACT_LIMITS.name)
  lastName?: string | null;

  @IsOptional()
  @IsString()
  @MaxLength(CONTACT_LIMITS.displayName)
  displayName?: string | null;

  /** IANA zone name, e.g. Europe/Paris. */
  @IsOptional()
  @IsTimeZone()
  timezone?: string | null;

  /** Language code, e.g. en or pt-BR. */
  @IsOptional()
  @IsLocale()
  @MaxLength(CONTACT_LIMITS.language)
  language?: string | null;

  @IsOptional()
  @IsIn(CONTACT_STATUSES)
  status?: ContactStatus | null;

  @IsOptional()
  @IsObject()
  customFields?: Record<string, unknown> | null;

  @IsOptional()
  @IsString()
  @MaxLength(CONTACT_LIMITS.notes)
  notes?: string | null;

  @IsOptional()
  @Type(() => Date)
  @IsDate()
  lastActivityAt?: Date | null;
}

export class CreateContactDto extends UpdateContactDto {
  /** Tag names; tags that do not exist yet are created. */
  @OptionalValue()
  @IsArray()
  @ArrayMaxSize(CONTACT_LIMITS.tagsPerContact)
  @IsString({ each: true })
  @MinLength(1, { each: true })
  @MaxLength(CONTACT_LIMITS.tagName, { each: true })
  tags?: string[];

  @OptionalValue()
  @IsArray()
  @ArrayMaxSize(50)
  @ValidateNested({ each: true })
  @Type(() => CreateEmailDto)
  emails?: CreateEmailDto[];

  @OptionalValue()
  @IsArray()
  @ArrayMaxSize(50)
  @ValidateNested({ each: true })
  @Type(() => CreateSmsDto)
  smsNumbers?: CreateSmsDto[];

  @OptionalValue()
  @IsArray()
  @ArrayMaxSize(50)
  @ValidateNested({ each: true })
  @Type(() => CreateWhatsappDto)
  whatsappAccounts?: CreateWhatsappDto[];

  @OptionalValue()
  @IsArray()
  @ArrayMaxSize(50)
  @ValidateNested({ each: true })
  @Type(() => CreateTelegramDto)
  telegramAccounts?: CreateTelegramDto[];

  @OptionalValue()
  @IsArray()
  @ArrayMaxSize(50)
  @ValidateNested({ each: true })
  @Type(() => CreateImessageDto)
  imessageAccounts?: CreateImessageDto[];

  @OptionalValue()
  @IsArray()
  @ArrayMaxSize(50)
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
  @ArrayMaxSize(100)
  @IsString({ each: true })
  @MinLength(1, { each: true })
  @MaxLength(100, { each: true })
  names: string[];
}
