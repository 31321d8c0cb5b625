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
import { registerFastPath } from '../http/validation';

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

const LIST_QUERY_ENUMS: Record<string, readonly string[]> = {
  status: CONTACT_STATUSES,
  channel: CONTACT_CHANNELS,
  sortBy: CONTACT_SORT_FIELDS,
  sortOrder: SORT_ORDERS,
};
const POSITIVE_INT = /^[1-9][0-9]{0,8}$/;

/**
 * The common, valid GET /contacts query without class-transformer and class-validator: only
 * single string values it can accept for certain (anything else, e.g. `limit=007` or a repeated
 * key, takes the general path and its exact 422s). Gives what the general path gives.
 */
export function fastListContactsQuery(value: unknown): ListContactsQueryDto | undefined {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const out = new ListContactsQueryDto();
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    if (typeof v !== 'string') return undefined;
    if (key === 'page' || key === 'limit') {
      if (!POSITIVE_INT.test(v)) return undefined;
      const n = Number(v);
      if (key === 'limit' && n > CONTACTS_MAX_LIMIT) return undefined;
      out[key] = n;
    } else if (key === 'search') {
      const search = v.trim();
      if (search.length < 1 || search.length > 320) return undefined;
      out.search = search;
    } else if (Object.hasOwn(LIST_QUERY_ENUMS, key)) {
      if (!LIST_QUERY_ENUMS[key].includes(v)) return undefined;
      (out as unknown as Record<string, string>)[key] = v;
    } else {
      return undefined;
    }
  }
  return out;
}
registerFastPath(ListContactsQueryDto, fastListContactsQuery);

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
