// Entities of campaigns and their recipients.
import {
  Column,
  CreateDateColumn,
  Entity,
  PrimaryColumn,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';

export const CAMPAIGN_CHANNELS = ['email'] as const;
export type CampaignChannel = (typeof CAMPAIGN_CHANNELS)[number];
export const CAMPAIGN_STATUSES = ['draft', 'sending', 'sent', 'cancelled'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];
export const RECIPIENT_STATUSES = ['pending', 'sent', 'held', 'failed'] as const;
export type CampaignRecipientStatus = (typeof RECIPIENT_STATUSES)[number];

@Entity('campaigns')
export class Campaign {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column('uuid') organizationId: string;
  @Column('text') name: string;
  @Column('text') channel: CampaignChannel;
  @Column('text') subject: string;
  @Column('text', { nullable: true }) html: string | null;
  @Column('text', { nullable: true }) text: string | null;
  /** The sender, `Name <a@b.c>` or a bare address (column `from_address`: `from` is reserved). */
  @Column('text', { name: 'from_address' }) from: string;
  @Column('uuid', { nullable: true }) listId: string | null;
  @Column('uuid', { nullable: true }) segmentId: string | null;
  @Column('text') status: CampaignStatus;
  @Column('int') recipientCount: number;
  @Column('int') sentCount: number;
  @Column('int') failedCount: number;
  @Column('timestamptz', { nullable: true }) startedAt: Date | null;
  @Column('timestamptz', { nullable: true }) completedAt: Date | null;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updatedAt: Date;
}

/** One contact of a campaign's audience: the fan-out's durable, resumable unit of work. */
@Entity('campaign_recipients')
export class CampaignRecipient {
  @PrimaryColumn('uuid') campaignId: string;
  @PrimaryColumn('uuid') contactId: string;
  @Column('uuid') organizationId: string;
  @Column('uuid', { nullable: true }) contactEmailId: string | null;
  @Column('text') status: CampaignRecipientStatus;
  @Column('timestamptz') nextAttemptAt: Date;
  @Column('int') attempts: number;
  /** The message job of the send path, once sent. */
  @Column('text', { nullable: true }) jobId: string | null;
  @Column('text', { nullable: true }) error: string | null;
  @Column('timestamptz', { nullable: true }) sentAt: Date | null;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updatedAt: Date;
}
