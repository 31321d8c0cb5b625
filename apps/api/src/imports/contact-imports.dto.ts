// Bodies and queries of the contact-import routes.
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsDefined,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  MaxLength,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { DUPLICATE_HANDLING, MAX_COLUMNS } from '@app/domain';
import type { DuplicateHandling } from '@app/domain';
import { OptionalValue, Trim } from '../contacts/contact-channels.dto';
import { TagNames } from '../contacts/contact-rules.decorators';

export class FieldMappingDto {
  /** A column name of the file's header row, exactly as the preview returned it. */
  @IsDefined()
  @IsString()
  @MaxLength(1000)
  csvHeader: string;

  /**
   * firstName, lastName, email, phoneNumber, whatsappNumber, telegramUsername, timezone, language,
   * status, notes, tags (`;`-separated), customFields.<key> or ignore.
   */
  @IsDefined()
  @IsString()
  @MaxLength(200)
  serviceField: string;
}

/** POST /contact-imports/{id}/start (§7). Header and field checks happen against the file. */
export class StartImportDto {
  @IsDefined()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_COLUMNS)
  // Without it an item that is itself an array passes ValidateNested and reaches the service.
  @IsObject({ each: true })
  @ValidateNested({ each: true })
  @Type(() => FieldMappingDto)
  fieldMappings: FieldMappingDto[];

  /** skip (default): a duplicate keeps its fields; update: its non-empty cells overwrite them. */
  @OptionalValue()
  @IsIn(DUPLICATE_HANDLING)
  duplicateHandling?: DuplicateHandling;

  /** false (default): one invalid row fails the import with nothing written. */
  @OptionalValue()
  @IsBoolean()
  allowPartialUpload?: boolean;

  /** An existing list of the organization (by name, any case) or a new one. */
  @IsOptional()
  @Trim()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  listName?: string | null;

  /** Tags every imported contact gets. */
  @OptionalValue()
  @IsArray()
  @TagNames()
  tags?: string[];

  /** Must be true: the contacts in the file agreed to be contacted. */
  @IsDefined()
  @IsBoolean()
  consentConfirmed: boolean;
}
