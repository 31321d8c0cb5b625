// Entity of a segment.
import {
  Column,
  CreateDateColumn,
  Entity,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';
import type { RuleGroupJson } from './segment-rules';
import type { OrgId } from '../common/org-id';

export const SEGMENT_TYPES = ['static', 'dynamic'] as const;
export type SegmentType = (typeof SEGMENT_TYPES)[number];

@Entity('contact_segments')
export class ContactSegment {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column('uuid') organizationId: OrgId;
  @Column('text') name: string;
  @Column('text', { nullable: true }) description: string | null;
  @Column('text') type: SegmentType;
  /** The validated rule tree of a dynamic segment; null for a static one. */
  @Column('jsonb', { nullable: true }) rules: RuleGroupJson | null;
  /** Members of a static segment, kept exact by triggers; null for a dynamic one. */
  @Column('int', { nullable: true }) contactCount: number | null;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updatedAt: Date;
}
