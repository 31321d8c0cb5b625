// Request shapes of the segment routes.
import { PageQueryDto } from '../http/page-query.dto';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  MaxLength,
  MinLength,
  ValidateIf,
} from 'class-validator';
import { SEGMENT_TYPES } from '@app/domain';
import type { SegmentType } from '@app/domain';
import { IsOmittable } from '../http/validation';

/** Most contact ids one membership request may carry. */
export const MAX_MEMBER_IDS = 1000;

export class CreateSegmentDto {
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name: string;

  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @IsString()
  @MaxLength(2000)
  description?: string | null;

  @IsIn(SEGMENT_TYPES)
  type: SegmentType;

  /** Dynamic only: `{operator: "and"|"or", conditions: [...]}` (§6), validated by the domain. */
  @IsOptional()
  @IsObject()
  rules?: Record<string, unknown>;

  /** Static only: the initial members. */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_MEMBER_IDS)
  @IsUUID('all', { each: true })
  contactIds?: string[];
}

export class UpdateSegmentDto {
  @IsOmittable()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name?: string;

  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @IsString()
  @MaxLength(2000)
  description?: string | null;

  /** Dynamic segments only; a static segment answers 409. */
  @IsOmittable()
  @IsObject()
  rules?: Record<string, unknown>;
}

export class SegmentMembersDto {
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_MEMBER_IDS)
  @IsUUID('all', { each: true })
  contactIds: string[];
}

export class PreviewSegmentDto {
  @IsObject()
  rules: Record<string, unknown>;
}

/** Page and limit of the segment listings: the shared page query. */
export class SegmentPageQueryDto extends PageQueryDto {}

export class SegmentListQueryDto extends SegmentPageQueryDto {
  /** `true` counts the members of dynamic segments (static ones always carry their count). */
  @IsOptional()
  @IsIn(['true', 'false'])
  withCounts?: 'true' | 'false';
}

export class SegmentGetQueryDto {
  @IsOptional()
  @IsIn(['true', 'false'])
  withCounts?: 'true' | 'false';
}
