// The six channel records of a contact (identifying values encrypted, with their blind index).
import {
  Column,
  CreateDateColumn,
  Entity,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';
import { encryptedColumn } from '../crypto/field-encryption';
import type { OrgId } from '../common/org-id';

export const EMAIL_STATUSES = [
  'verified',
  'unverified',
  'bounced',
  'complained',
  'suppressed',
] as const;
export const SMS_STATUSES = ['verified', 'unverified', 'invalid', 'opted_out'] as const;
export const WHATSAPP_STATUSES = ['verified', 'unverified', 'blocked'] as const;
export const TELEGRAM_STATUSES = ['active', 'inactive', 'blocked'] as const;
export const IMESSAGE_STATUSES = ['verified', 'unverified', 'invalid'] as const;
export const PUSH_STATUSES = ['active', 'inactive', 'expired'] as const;
export const PUSH_PLATFORMS = ['ios', 'android', 'web'] as const;
/** ContactEmail statuses that must never be sent to. */
export const SUPPRESSED_EMAIL_STATUSES = [
  'bounced',
  'complained',
  'suppressed',
] as const satisfies readonly EmailStatus[];

export type EmailStatus = (typeof EMAIL_STATUSES)[number];
export type SmsStatus = (typeof SMS_STATUSES)[number];
export type WhatsappStatus = (typeof WHATSAPP_STATUSES)[number];
export type TelegramStatus = (typeof TELEGRAM_STATUSES)[number];
export type ImessageStatus = (typeof IMESSAGE_STATUSES)[number];
export type PushStatus = (typeof PUSH_STATUSES)[number];
export type PushPlatform = (typeof PUSH_PLATFORMS)[number];

abstract class ChannelRecord {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column('uuid') organizationId: OrgId;
  @Column('uuid') contactId: string;
  @Column('boolean') isPrimary: boolean;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updatedAt: Date;
}

@Entity('contact_emails')
export class ContactEmail extends ChannelRecord {
  @Column('text', { transformer: encryptedColumn }) email: string;
  @Column('text', { select: false }) emailHash: string;
  @Column('text') status: EmailStatus;
  @Column('int') bounceCount: number;
  @Column('int') complaintCount: number;
  @Column('timestamptz', { nullable: true }) verifiedAt: Date | null;
  @Column('timestamptz', { nullable: true }) lastBouncedAt: Date | null;
  @Column('timestamptz', { nullable: true }) lastComplainedAt: Date | null;
}

@Entity('contact_sms')
export class ContactSms extends ChannelRecord {
  @Column('text', { transformer: encryptedColumn }) phoneNumber: string;
  @Column('text', { select: false }) phoneHash: string;
  @Column('text') countryCode: string;
  @Column('text') status: SmsStatus;
  @Column('timestamptz', { nullable: true }) verifiedAt: Date | null;
  @Column('timestamptz', { nullable: true }) optedOutAt: Date | null;
}

@Entity('contact_whatsapp')
export class ContactWhatsapp extends ChannelRecord {
  @Column('text', { transformer: encryptedColumn }) phoneNumber: string;
  @Column('text', { select: false }) phoneHash: string;
  @Column('text') countryCode: string;
  @Column('text') status: WhatsappStatus;
  @Column('boolean') isBusinessAccount: boolean;
  @Column('timestamptz', { nullable: true }) lastSeenAt: Date | null;
  @Column('timestamptz', { nullable: true }) verifiedAt: Date | null;
}

@Entity('contact_telegram')
export class ContactTelegram extends ChannelRecord {
  @Column('text', { transformer: encryptedColumn }) phoneNumber: string;
  @Column('text', { select: false }) phoneHash: string;
  @Column('text') countryCode: string;
  @Column('text', { nullable: true, transformer: encryptedColumn }) username: string | null;
  @Column('text') status: TelegramStatus;
  @Column('timestamptz', { nullable: true }) lastActiveAt: Date | null;
  /** The chat the contact opened with an organization's bot (its deep link); the address sent to. */
  @Column('text', { nullable: true, select: false, transformer: encryptedColumn })
  chatId: string | null;
  @Column('text', { nullable: true, select: false }) chatIdHash: string | null;
}

@Entity('contact_imessage')
export class ContactImessage extends ChannelRecord {
  @Column('text', { transformer: encryptedColumn }) appleId: string;
  @Column('text', { select: false }) appleIdHash: string;
  @Column('text', { nullable: true, transformer: encryptedColumn }) phoneNumber: string | null;
  @Column('text') status: ImessageStatus;
  @Column('timestamptz', { nullable: true }) verifiedAt: Date | null;
}

@Entity('contact_push')
export class ContactPush extends ChannelRecord {
  @Column('text', { transformer: encryptedColumn }) deviceToken: string;
  @Column('text', { select: false }) deviceTokenHash: string;
  @Column('text') platform: PushPlatform;
  @Column('text') status: PushStatus;
  @Column('text', { nullable: true }) appVersion: string | null;
  @Column('jsonb', { nullable: true }) deviceInfo: Record<string, unknown> | null;
  @Column('timestamptz', { nullable: true }) lastUsedAt: Date | null;
  @Column('timestamptz', { nullable: true }) expiresAt: Date | null;
}

export type ChannelEntity =
  | typeof ContactEmail
  | typeof ContactSms
  | typeof ContactWhatsapp
  | typeof ContactTelegram
  | typeof ContactImessage
  | typeof ContactPush;

export type ChannelRecordOf = {
  email: ContactEmail;
  sms: ContactSms;
  whatsapp: ContactWhatsapp;
  telegram: ContactTelegram;
  imessage: ContactImessage;
  push: ContactPush;
};

/** Per channel: its entity, table, bit in `contacts.channel_mask` and Contact response key. */
export const CHANNEL_INFO = {
  email: { entity: ContactEmail, table: 'contact_emails', bit: 1, key: 'emails', label: 'Email' },
  sms: { entity: ContactSms, table: 'contact_sms', bit: 2, key: 'smsNumbers', label: 'SMS number' },
  whatsapp: {
    entity: ContactWhatsapp,
    table: 'contact_whatsapp',
    bit: 4,
    key: 'whatsappAccounts',
    label: 'WhatsApp account',
  },
  telegram: {
    entity: ContactTelegram,
    table: 'contact_telegram',
    bit: 8,
    key: 'telegramAccounts',
    label: 'Telegram account',
  },
  imessage: {
    entity: ContactImessage,
    table: 'contact_imessage',
    bit: 16,
    key: 'imessageAccounts',
    label: 'iMessage account',
  },
  push: {
    entity: ContactPush,
    table: 'contact_push',
    bit: 32,
    key: 'pushNotifications',
    label: 'Push registration',
  },
} as const;

/** Channel names as the API spells them (filters, preferredChannels). */
export const CONTACT_CHANNELS = [
  'email',
  'sms',
  'whatsapp',
  'telegram',
  'imessage',
  'push',
] as const;
export type ContactChannel = (typeof CONTACT_CHANNELS)[number];
