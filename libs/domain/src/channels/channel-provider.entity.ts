// The ChannelProvider record (§17): an organization's account with one provider for one channel,
// its non-secret settings, its credentials (encrypted at rest, write-only), its health and its
// throughput.
import {
  Column,
  CreateDateColumn,
  Entity,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';
import type { OrgId } from '../common/org-id';
import { encryptedColumn } from '../crypto/field-encryption';
import type { ProviderChannel } from './provider-adapter';

export const PROVIDER_NAMES = [
  'twilio',
  'whatsapp-cloud',
  'telegram-bot',
  'fcm',
  'apns',
  'blooio',
  'http',
] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];

/** `failing`: the provider refused the credentials on consecutive sends; `disabled`: by choice. */
export const PROVIDER_ACCOUNT_STATUSES = ['active', 'failing', 'disabled'] as const;
export type ProviderAccountStatus = (typeof PROVIDER_ACCOUNT_STATUSES)[number];

@Entity('channel_providers')
export class ChannelProvider {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column('uuid') organizationId: OrgId;
  @Column('text') channel: ProviderChannel;
  @Column('text') provider: ProviderName;
  @Column('text') name: string;
  /** Non-secret: sender number, project id, bundle id, `apiBaseUrl`… */
  @Column('jsonb') settings: Record<string, unknown>;
  /** The credential object as JSON, encrypted at rest; read only to send. */
  @Column('text', { select: false, transformer: encryptedColumn }) credentials: string;
  @Column('text') status: ProviderAccountStatus;
  @Column('int') consecutiveAuthFailures: number;
  @Column('boolean') isDefault: boolean;
  @Column('int') maxPerSecond: number;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updatedAt: Date;
}
