// A contact's membership of a list.
import {
  Column,
  CreateDateColumn,
  Entity,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';
import type { OrgId } from '../common/org-id';

export const MEMBERSHIP_STATUSES = ['subscribed', 'unsubscribed'] as const;
export type MembershipStatus = (typeof MEMBERSHIP_STATUSES)[number];

/** A contact's membership of a list; `contact_lists.subscriber_count` moves with its status. */
@Entity('contact_list_memberships')
export class ContactListMembership {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column('uuid') organizationId: OrgId;
  @Column('uuid') contactId: string;
  @Column('uuid') contactListId: string;
  @Column('text') status: MembershipStatus;
  @Column('timestamptz') subscribedAt: Date;
  @Column('timestamptz', { nullable: true }) unsubscribedAt: Date | null;
  @Column('text', { nullable: true }) unsubscribeReason: string | null;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updatedAt: Date;
}
