// Entities of campaigns and their recipients.
import {
  Column,
  CreateDateColumn,
  Entity,
  PrimaryColumn,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';
import type {
  ImessageContent,
  PushContent,
  SmsContent,
  TelegramContent,
  WhatsappContent,
} from '../channels/provider-adapter';
import type { OrgId } from '../common/org-id';
import { CONTACT_CHANNELS, ContactChannel } from '../contacts/contact-channels.entity';

/** What a campaign sends on each channel beyond email (email's content is its own columns). */
export interface CampaignContent {
  sms?: SmsContent;
  whatsapp?: WhatsappContent;
  telegram?: TelegramContent;
  imessage?: ImessageContent;
  /** A push's platform is each device's own. */
  push?: PushContent;
}

export const CAMPAIGN_CHANNELS = CONTACT_CHANNELS;
export type CampaignChannel = ContactChannel;
export const CAMPAIGN_STATUSES = ['draft', 'sending', 'sent', 'cancelled'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];
export const RECIPIENT_STATUSES = ['pending', 'sent', 'held', 'failed', 'unreachable'] as const;
export type CampaignRecipientStatus = (typeof RECIPIENT_STATUSES)[number];

@Entity('campaigns')
export class Campaign {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column('uuid') organizationId: OrgId;
  @Column('text') name: string;
  /** The first of `channels`. */
  @Column('text') channel: CampaignChannel;
  /** The channels in the order a contact is tried on (its first reachable one gets the message). */
  @Column('text', { array: true }) channels: CampaignChannel[];
  @Column('jsonb') content: CampaignContent;
  @Column('text', { nullable: true }) subject: string | null;
  @Column('text', { nullable: true }) html: string | null;
  @Column('text', { nullable: true }) text: string | null;
  /** The sender, `Name <a@b.c>` or a bare address (column `from_address`: `from` is reserved). */
  @Column('text', { name: 'from_address', nullable: true }) from: string | null;
  @Column('uuid', { nullable: true }) listId: string | null;
  @Column('uuid', { nullable: true }) segmentId: string | null;
  @Column('text') status: CampaignStatus;
  @Column('int') recipientCount: number;
  @Column('int') sentCount: number;
  @Column('int') failedCount: number;
  /** Contacts of the audience reachable on none of the channels (no message). */
  @Column('int') unreachableCount: number;
  /** Quiet hours, minutes of the day in each contact's time zone (both null: none). */
  @Column('smallint', { nullable: true }) quietStart: number | null;
  @Column('smallint', { nullable: true }) quietEnd: number | null;
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
  @Column('uuid') organizationId: OrgId;
  @Column('uuid', { nullable: true }) contactEmailId: string | null;
  /** The channel the contact's message goes out on; null when it is unreachable. */
  @Column('text', { nullable: true }) channel: CampaignChannel | null;
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
