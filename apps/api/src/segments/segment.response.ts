// Response shapes of segments (§6): a segment with its rules, and a rules preview.
import { ApiProperty } from '@nestjs/swagger';
import { SEGMENT_TYPES } from '@app/domain';
import type { ContactSegment, SegmentPreview, SegmentType } from '@app/domain';
import { ContactResponse, toContactResponse } from '../contacts/contact.response';
import { INSTANT, STRING_OR_NULL, UUID } from '../http/openapi-properties';
import { SegmentRuleGroupResponse } from './segment-rule.response';

/** A segment. */
export class SegmentResponse {
  @ApiProperty(UUID)
  id: string;

  @ApiProperty(UUID)
  organizationId: string;

  name: string;

  @ApiProperty(STRING_OR_NULL)
  description: string | null;

  @ApiProperty({ enum: SEGMENT_TYPES })
  type: SegmentType;

  /** The rule tree of a dynamic segment; null for a static one. */
  @ApiProperty({ type: SegmentRuleGroupResponse, nullable: true })
  rules: SegmentRuleGroupResponse | null;

  /** Members: always for a static segment; for a dynamic one with `withCounts=true`, else null. */
  @ApiProperty({ type: Number, nullable: true })
  contactCount: number | null;

  @ApiProperty(INSTANT)
  createdAt: Date;

  @ApiProperty(INSTANT)
  updatedAt: Date;
}

/** What rules select, nothing stored. */
export class SegmentPreviewResponse {
  /** Contacts the rules select. */
  count: number;

  /** Up to 10 of them, with emails and tags. */
  sample: ContactResponse[];
}

export function toSegmentResponse(s: ContactSegment): SegmentResponse {
  return {
    id: s.id,
    organizationId: s.organizationId,
    name: s.name,
    description: s.description,
    type: s.type,
    rules: s.rules,
    contactCount: s.contactCount,
    createdAt: s.createdAt,
    updatedAt: s.updatedAt,
  };
}

export function toSegmentPreviewResponse(p: SegmentPreview): SegmentPreviewResponse {
  return { count: p.count, sample: p.sample.map(toContactResponse) };
}
