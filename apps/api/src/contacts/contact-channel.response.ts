// Response shapes of a contact's channel records (§5), as GET /contacts/{id} embeds them.
import { ApiProperty } from '@nestjs/swagger';
import {
  contactEmailPayload,
  contactImessagePayload,
  contactPushPayload,
  contactSmsPayload,
  contactTelegramPayload,
  contactWhatsappPayload,
  IMESSAGE_STATUSES,
  PUSH_PLATFORMS,
  PUSH_STATUSES,
  SMS_STATUSES,
  TELEGRAM_STATUSES,
  WHATSAPP_STATUSES,
} from '@app/domain';
import type {
  ContactEmail,
  ContactEmailPayload,
  ContactImessage,
  ContactImessagePayload,
  ContactPush,
  ContactPushPayload,
  ContactSms,
  ContactSmsPayload,
  ContactTelegram,
  ContactTelegramPayload,
  ContactWhatsapp,
  ContactWhatsappPayload,
  EmailStatus,
  ImessageStatus,
  PushPlatform,
  PushStatus,
  SmsStatus,
  TelegramStatus,
  WhatsappStatus,
} from '@app/domain';
import {
  FREE_OBJECT_OR_NULL,
  INSTANT,
  INSTANT_OR_NULL,
  STRING_OR_NULL,
  UUID,
} from '../http/openapi-properties';
import { EMAIL_STATUS } from '../http/openapi-enums';

/** An email address of a contact. */
export class ContactEmailResponse implements ContactEmailPayload {
  @ApiProperty(UUID)
  id: string;

  @ApiProperty(UUID)
  contactId: string;

  @ApiProperty(UUID)
  organizationId: string;

  @ApiProperty({ format: 'email' })
  email: string;

  @ApiProperty(EMAIL_STATUS)
  status: EmailStatus;

  isPrimary: boolean;

  bounceCount: number;

  complaintCount: number;

  @ApiProperty(INSTANT_OR_NULL)
  verifiedAt: string | null;

  @ApiProperty(INSTANT_OR_NULL)
  lastBouncedAt: string | null;

  @ApiProperty(INSTANT_OR_NULL)
  lastComplainedAt: string | null;

  @ApiProperty(INSTANT)
  createdAt: string;

  @ApiProperty(INSTANT)
  updatedAt: string;
}

/** An SMS number of a contact (E.164). */
export class ContactSmsResponse implements ContactSmsPayload {
  @ApiProperty(UUID)
  id: string;

  @ApiProperty(UUID)
  contactId: string;

  phoneNumber: string;

  countryCode: string;

  @ApiProperty({ enum: SMS_STATUSES })
  status: SmsStatus;

  isPrimary: boolean;

  @ApiProperty(INSTANT_OR_NULL)
  verifiedAt: string | null;

  @ApiProperty(INSTANT_OR_NULL)
  optedOutAt: string | null;

  @ApiProperty(INSTANT)
  createdAt: string;

  @ApiProperty(INSTANT)
  updatedAt: string;
}

/** A WhatsApp account of a contact. */
export class ContactWhatsappResponse implements ContactWhatsappPayload {
  @ApiProperty(UUID)
  id: string;

  @ApiProperty(UUID)
  contactId: string;

  phoneNumber: string;

  countryCode: string;

  @ApiProperty({ enum: WHATSAPP_STATUSES })
  status: WhatsappStatus;

  isPrimary: boolean;

  isBusinessAccount: boolean;

  @ApiProperty(INSTANT_OR_NULL)
  lastSeenAt: string | null;

  @ApiProperty(INSTANT_OR_NULL)
  verifiedAt: string | null;

  @ApiProperty(INSTANT)
  createdAt: string;

  @ApiProperty(INSTANT)
  updatedAt: string;
}

/** A Telegram account of a contact. */
export class ContactTelegramResponse implements ContactTelegramPayload {
  @ApiProperty(UUID)
  id: string;

  @ApiProperty(UUID)
  contactId: string;

  phoneNumber: string;

  countryCode: string;

  @ApiProperty(STRING_OR_NULL)
  username: string | null;

  @ApiProperty({ enum: TELEGRAM_STATUSES })
  status: TelegramStatus;

  isPrimary: boolean;

  @ApiProperty(INSTANT_OR_NULL)
  lastActiveAt: string | null;

  @ApiProperty(INSTANT)
  createdAt: string;

  @ApiProperty(INSTANT)
  updatedAt: string;
}

/** An iMessage account of a contact. */
export class ContactImessageResponse implements ContactImessagePayload {
  @ApiProperty(UUID)
  id: string;

  @ApiProperty(UUID)
  contactId: string;

  appleId: string;

  @ApiProperty(STRING_OR_NULL)
  phoneNumber: string | null;

  @ApiProperty({ enum: IMESSAGE_STATUSES })
  status: ImessageStatus;

  isPrimary: boolean;

  @ApiProperty(INSTANT_OR_NULL)
  verifiedAt: string | null;

  @ApiProperty(INSTANT)
  createdAt: string;

  @ApiProperty(INSTANT)
  updatedAt: string;
}

/** A push registration of a contact. */
export class ContactPushResponse implements ContactPushPayload {
  @ApiProperty(UUID)
  id: string;

  @ApiProperty(UUID)
  contactId: string;

  deviceToken: string;

  @ApiProperty({ enum: PUSH_PLATFORMS })
  platform: PushPlatform;

  @ApiProperty({ enum: PUSH_STATUSES })
  status: PushStatus;

  @ApiProperty(STRING_OR_NULL)
  appVersion: string | null;

  @ApiProperty(FREE_OBJECT_OR_NULL)
  deviceInfo: Record<string, unknown> | null;

  isPrimary: boolean;

  @ApiProperty(INSTANT_OR_NULL)
  lastUsedAt: string | null;

  @ApiProperty(INSTANT_OR_NULL)
  expiresAt: string | null;

  @ApiProperty(INSTANT)
  createdAt: string;

  @ApiProperty(INSTANT)
  updatedAt: string;
}

// The records leave as the contact events carry them (contact-payload.ts): one mapping each.
export const toContactEmailResponse: (e: ContactEmail) => ContactEmailResponse =
  contactEmailPayload;
export const toContactSmsResponse: (s: ContactSms) => ContactSmsResponse = contactSmsPayload;
export const toContactWhatsappResponse: (w: ContactWhatsapp) => ContactWhatsappResponse =
  contactWhatsappPayload;
export const toContactTelegramResponse: (t: ContactTelegram) => ContactTelegramResponse =
  contactTelegramPayload;
export const toContactImessageResponse: (i: ContactImessage) => ContactImessageResponse =
  contactImessagePayload;
export const toContactPushResponse: (p: ContactPush) => ContactPushResponse = contactPushPayload;
