// Request bodies of the API key routes.
import {
  ArrayMinSize,
  IsArray,
  IsDate,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateIf,
} from 'class-validator';
import { SCOPES } from '@app/domain';
import { IsOmittable, ToDate } from '../http/validation';

export class CreateApiKeyDto {
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name: string;

  /** Scopes the key is issued with. */
  @IsArray()
  @ArrayMinSize(1)
  @IsIn(SCOPES, { each: true })
  scopes: string[];

  /** Requests per minute; default 300. */
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  rateLimitPerMinute?: number;

  /** Requests per UTC day; null for no cap. */
  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @IsInt()
  @Min(1)
  @Max(1_000_000_000)
  rateLimitPerDay?: number | null;

  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @ToDate()
  @IsDate()
  expiresAt?: Date | null;
}

export class UpdateApiKeyDto {
  @IsOmittable()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name?: string;

  @IsOmittable()
  @IsArray()
  @ArrayMinSize(1)
  @IsIn(SCOPES, { each: true })
  scopes?: string[];

  @IsOmittable()
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  rateLimitPerMinute?: number;

  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @IsInt()
  @Min(1)
  @Max(1_000_000_000)
  rateLimitPerDay?: number | null;

  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @ToDate()
  @IsDate()
  expiresAt?: Date | null;
}
