// A contact list of an organization.
import {
  Column,
  CreateDateColumn,
  Entity,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';
import type { OrgId } from '../common/org-id';

export const LIST_STATUSES = ['active', 'inactive', 'archived'] as const;
export type ListStatus = (typeof LIST_STATUSES)[number];
export const CHANNELS = ['email', 'sms', 'imessage', 'telegram', 'push', 'whatsapp'] as const;
export type Channel = (typeof CHANNELS)[number];

@Entity('contact_lists')
export class ContactList {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column('uuid') organizationId: OrgId;
  @Column('text') cuid: string;
  @Column('text') name: string;
  @Column('text', { nullable: true }) description: string | null;
  @Column('text') status: ListStatus;
  @Column('text', { array: true }) preferredChannels: Channel[];
  @Column('boolean') isDefault: boolean;
  @Column('int') subscriberCount: number;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updatedAt: Date;
}
