// The contact as the contract spells it (§5, §10): the `contact` of contact.created and
// contact.updated, and the body GET /contacts/{id} answers, built from a contact view.
import type { MembershipStatus } from './contact-list-membership.entity';
import type { Channel, ListStatus } from './contact-list.entity';
import type { Contact, ContactStatus } from './contact.entity';
import type {
  ContactEmail,
  ContactImessage,
  ContactPush,
  ContactSms,
  ContactTelegram,
  ContactWhatsapp,
  EmailStatus,
  ImessageStatus,
  PushPlatform,
  PushStatus,
  SmsStatus,
  TelegramStatus,
  WhatsappStatus,
} from './contact-channels.entity';
import type { ContactTag } from './contact-tag.entity';
import type { ListedContactView, ListView, MembershipView } from './contact-views';
import type { Listed } from '../database/entity-rows';

/**
 * Timestamps leave as ISO 8601 strings (what JSON.stringify would produce from the Date): turning
 * them into strings here is several times cheaper than letting JSON call Date.toJSON on a
 * thousand dates per page. A string is already that text (a listed page, toListedEntities).
 */
function iso(d: Date | string): string;
function iso(d: Date | string | null | undefined): string | null;
function iso(d: Date | string | null | undefined): string | null {
  if (!d) return null;
  return typeof d === 'string' ? d : d.toISOString();
}

export interface ContactEmailPayload {
  id: string;
  contactId: string;
  organizationId: string;
  email: string;
  status: EmailStatus;
  isPrimary: boolean;
  bounceCount: number;
  complaintCount: number;
  verifiedAt: string | null;
  lastBouncedAt: string | null;
  lastComplainedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface ContactSmsPayload {
  id: string;
  contactId: string;
  phoneNumber: string;
  countryCode: string;
  status: SmsStatus;
  isPrimary: boolean;
  verifiedAt: string | null;
  optedOutAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface ContactWhatsappPayload {
  id: string;
  contactId: string;
  phoneNumber: string;
  countryCode: string;
  status: WhatsappStatus;
  isPrimary: boolean;
  isBusinessAccount: boolean;
  lastSeenAt: string | null;
  verifiedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface ContactTelegramPayload {
  id: string;
  contactId: string;
  phoneNumber: string;
  countryCode: string;
  username: string | null;
  status: TelegramStatus;
  isPrimary: boolean;
  lastActiveAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface ContactImessagePayload {
  id: string;
  contactId: string;
  appleId: string;
  phoneNumber: string | null;
  status: ImessageStatus;
  isPrimary: boolean;
  verifiedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface ContactPushPayload {
  id: string;
  contactId: string;
  deviceToken: string;
  platform: PushPlatform;
  status: PushStatus;
  appVersion: string | null;
  deviceInfo: ContactPush['deviceInfo'];
  isPrimary: boolean;
  lastUsedAt: string | null;
  expiresAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface ContactTagPayload {
  id: string;
  organizationId: string;
  name: string;
  contactCount: number;
  createdAt: string;
  updatedAt: string;
}

export interface ContactListPayload {
  id: string;
  cuid: string;
  organizationId: string;
  name: string;
  description: string | null;
  status: ListStatus;
  preferredChannels: Channel[];
  tags: string[];
  isDefault: boolean;
  subscriberCount: number;
  createdAt: string;
  updatedAt: string;
}

export interface ContactListMembershipPayload {
  id: string;
  contactId: string;
  contactListId: string;
  status: MembershipStatus;
  subscribedAt: string;
  unsubscribedAt: string | null;
  unsubscribeReason: string | null;
  createdAt: string;
  updatedAt: string;
  /** Present when the membership was read with its list. */
  contactList?: ContactListPayload;
}

/** A contact with the arrays its view carries (a GET /contacts page has no tag records or lists). */
export interface ContactPayload {
  id: string;
  organizationId: string;
  firstName: string | null;
  lastName: string | null;
  displayName: string | null;
  timezone: string | null;
  language: string | null;
  status: ContactStatus | null;
  customFields: Contact['customFields'];
  notes: string | null;
  lastActivityAt: string | null;
  tags: string[];
  createdAt: string;
  updatedAt: string;
  emails?: ContactEmailPayload[];
  smsNumbers?: ContactSmsPayload[];
  whatsappAccounts?: ContactWhatsappPayload[];
  telegramAccounts?: ContactTelegramPayload[];
  imessageAccounts?: ContactImessagePayload[];
  pushNotifications?: ContactPushPayload[];
  tagRecords?: ContactTagPayload[];
  listMemberships?: ContactListMembershipPayload[];
}

export function contactEmailPayload(e: Listed<ContactEmail>): ContactEmailPayload {
  return {
    id: e.id,
    contactId: e.contactId,
    organizationId: e.organizationId,
    email: e.email,
    status: e.status,
    isPrimary: e.isPrimary,
    bounceCount: e.bounceCount,
    complaintCount: e.complaintCount,
    verifiedAt: iso(e.verifiedAt),
    lastBouncedAt: iso(e.lastBouncedAt),
    lastComplainedAt: iso(e.lastComplainedAt),
    createdAt: iso(e.createdAt),
    updatedAt: iso(e.updatedAt),
  };
}

export function contactSmsPayload(s: Listed<ContactSms>): ContactSmsPayload {
  return {
    id: s.id,
    contactId: s.contactId,
    phoneNumber: s.phoneNumber,
    countryCode: s.countryCode,
    status: s.status,
    isPrimary: s.isPrimary,
    verifiedAt: iso(s.verifiedAt),
    optedOutAt: iso(s.optedOutAt),
    createdAt: iso(s.createdAt),
    updatedAt: iso(s.updatedAt),
  };
}

export function contactWhatsappPayload(w: Listed<ContactWhatsapp>): ContactWhatsappPayload {
  return {
    id: w.id,
    contactId: w.contactId,
    phoneNumber: w.phoneNumber,
    countryCode: w.countryCode,
    status: w.status,
    isPrimary: w.isPrimary,
    isBusinessAccount: w.isBusinessAccount,
    lastSeenAt: iso(w.lastSeenAt),
    verifiedAt: iso(w.verifiedAt),
    createdAt: iso(w.createdAt),
    updatedAt: iso(w.updatedAt),
  };
}

export function contactTelegramPayload(t: Listed<ContactTelegram>): ContactTelegramPayload {
  return {
    id: t.id,
    contactId: t.contactId,
    phoneNumber: t.phoneNumber,
    countryCode: t.countryCode,
    username: t.username,
    status: t.status,
    isPrimary: t.isPrimary,
    lastActiveAt: iso(t.lastActiveAt),
    createdAt: iso(t.createdAt),
    updatedAt: iso(t.updatedAt),
  };
}

export function contactImessagePayload(i: Listed<ContactImessage>): ContactImessagePayload {
  return {
    id: i.id,
    contactId: i.contactId,
    appleId: i.appleId,
    phoneNumber: i.phoneNumber,
    status: i.status,
    isPrimary: i.isPrimary,
    verifiedAt: iso(i.verifiedAt),
    createdAt: iso(i.createdAt),
    updatedAt: iso(i.updatedAt),
  };
}

export function contactPushPayload(p: Listed<ContactPush>): ContactPushPayload {
  return {
    id: p.id,
    contactId: p.contactId,
    deviceToken: p.deviceToken,
    platform: p.platform,
    status: p.status,
    appVersion: p.appVersion,
    deviceInfo: p.deviceInfo,
    isPrimary: p.isPrimary,
    lastUsedAt: iso(p.lastUsedAt),
    expiresAt: iso(p.expiresAt),
    createdAt: iso(p.createdAt),
    updatedAt: iso(p.updatedAt),
  };
}

/** A tag; its contactCount is `contactCount` (0 for the tags embedded in a contact, §5). */
export function contactTagPayload(t: ContactTag, contactCount = 0): ContactTagPayload {
  return {
    id: t.id,
    organizationId: t.organizationId,
    name: t.name,
    contactCount,
    createdAt: iso(t.createdAt),
    updatedAt: iso(t.updatedAt),
  };
}

export function contactListPayload(v: ListView): ContactListPayload {
  const l = v.list;
  return {
    id: l.id,
    cuid: l.cuid,
    organizationId: l.organizationId,
    name: l.name,
    description: l.description,
    status: l.status,
    preferredChannels: l.preferredChannels,
    tags: v.tags,
    isDefault: l.isDefault,
    subscriberCount: l.subscriberCount,
    createdAt: iso(l.createdAt),
    updatedAt: iso(l.updatedAt),
  };
}

/** A membership, with its list when the view carries it (the view's contact is not read here). */
export function contactListMembershipPayload(v: MembershipView): ContactListMembershipPayload {
  const m = v.membership;
  const out: ContactListMembershipPayload = {
    id: m.id,
    contactId: m.contactId,
    contactListId: m.contactListId,
    status: m.status,
    subscribedAt: iso(m.subscribedAt),
    unsubscribedAt: iso(m.unsubscribedAt),
    unsubscribeReason: m.unsubscribeReason,
    createdAt: iso(m.createdAt),
    updatedAt: iso(m.updatedAt),
  };
  if (v.contactList) out.contactList = contactListPayload(v.contactList);
  return out;
}

/** The contact of a view, with each array the view carries. */
export function contactPayload(v: ListedContactView): ContactPayload {
  const c = v.contact;
  const out: ContactPayload = {
    id: c.id,
    organizationId: c.organizationId,
    firstName: c.firstName,
    lastName: c.lastName,
    displayName: c.displayName,
    timezone: c.timezone,
    language: c.language,
    status: c.status,
    customFields: c.customFields,
    notes: c.notes,
    lastActivityAt: iso(c.lastActivityAt),
    tags: v.tags,
    createdAt: iso(c.createdAt),
    updatedAt: iso(c.updatedAt),
  };
  if (v.emails) out.emails = v.emails.map(contactEmailPayload);
  if (v.smsNumbers) out.smsNumbers = v.smsNumbers.map(contactSmsPayload);
  if (v.whatsappAccounts) out.whatsappAccounts = v.whatsappAccounts.map(contactWhatsappPayload);
  if (v.telegramAccounts) out.telegramAccounts = v.telegramAccounts.map(contactTelegramPayload);
  if (v.imessageAccounts) out.imessageAccounts = v.imessageAccounts.map(contactImessagePayload);
  if (v.pushNotifications) out.pushNotifications = v.pushNotifications.map(contactPushPayload);
  if (v.tagRecords) out.tagRecords = v.tagRecords.map((t) => contactTagPayload(t));
  if (v.listMemberships) out.listMemberships = v.listMemberships.map(contactListMembershipPayload);
  return out;
}
