// Entity of an API key.
import {
  Column,
  CreateDateColumn,
  Entity,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';
import type { OrgId } from '../common/org-id';

@Entity('api_keys')
export class ApiKey {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column('uuid') organizationId: OrgId;
  @Column('text') name: string;
  /** SHA-256 hex of the key value; the value itself is never stored. */
  @Column('text', { select: false }) keyHash: string;
  /** First 12 characters, for display. */
  @Column('text') keyPrefix: string;
  @Column('text', { array: true }) scopes: string[];
  @Column('int') rateLimitPerMinute: number;
  @Column('int', { nullable: true }) rateLimitPerDay: number | null;
  @Column('timestamptz', { nullable: true }) expiresAt: Date | null;
  @Column('timestamptz', { nullable: true }) revokedAt: Date | null;
  @Column('timestamptz', { nullable: true }) lastUsedAt: Date | null;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updatedAt: Date;
}
