// Entity of an organization, its plans and subscription states.
import {
  Column,
  CreateDateColumn,
  Entity,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';
import type { OrgId } from '../common/org-id';

export const PLANS = ['free', 'pro', 'enterprise'] as const;
export type Plan = (typeof PLANS)[number];
export const SUBSCRIPTION_STATUSES = ['active', 'trialing', 'past_due', 'canceled'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

@Entity('organizations')
export class Organization {
  @PrimaryGeneratedColumn('uuid') id: OrgId;
  @Column('text') name: string;
  @Column('text') plan: Plan;
  @Column('text') subscriptionStatus: SubscriptionStatus;
  @Column('int') messageRetentionDays: number;
  /** Sending-limit overrides (§8); null means the plan default. */
  @Column('int', { nullable: true }) limitPerSecond: number | null;
  @Column('int', { nullable: true }) limitPerMinute: number | null;
  @Column('int', { nullable: true }) limitPerHour: number | null;
  @Column('int', { nullable: true }) limitPerDay: number | null;
  @Column('int', { nullable: true }) limitPerMonth: number | null;
  /** Sending domains the organization may hold (§16); null means the plan's number. */
  @Column('int', { nullable: true }) maxSendingDomains: number | null;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updatedAt: Date;
}
