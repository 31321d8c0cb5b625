// Contact views (what the contacts services return) and the mappers to the spec's field sets.
import type { ContactList } from './contact-list.entity';
import type { ContactListMembership } from './contact-list-membership.entity';
import type { Contact } from './contact.entity';
import type {
  ContactEmail,
  ContactImessage,
  ContactPush,
  ContactSms,
  ContactTelegram,
  ContactWhatsapp,
} from './contact-channels.entity';
import type { ContactTag } from './contact-tag.entity';

/** What `toContactResponse` reads: a contact with what was loaded with it. */
export interface ContactView {
  contact: Contact;
  /** Tag names; empty when tags were not loaded. */
  tags: string[];
  emails?: ContactEmail[];
  smsNumbers?: ContactSms[];
  whatsappAccounts?: ContactWhatsapp[];
  telegramAccounts?: ContactTelegram[];
  imessageAccounts?: ContactImessage[];
  pushNotifications?: ContactPush[];
  tagRecords?: ContactTag[];
  listMemberships?: MembershipView[];
}

export interface ListView {
  list: ContactList;
  /** Tag names; empty when tags were not loaded. */
  tags: string[];
}

export interface MembershipView {
  membership: ContactListMembership;
  contact?: ContactView;
  contactList?: ListView;
}

export function toEmailResponse(e: ContactEmail) {
  return {
    id: e.id,
    contactId: e.contactId,
    organizationId: e.organizationId,
    email: e.email,
    status: e.status,
    isPrimary: e.isPrimary,
    bounceCount: e.bounceCount,
    complaintCount: e.complaintCount,
    verifiedAt: e.verifiedAt,
    lastBouncedAt: e.lastBouncedAt,
    lastComplainedAt: e.lastComplainedAt,
    createdAt: e.createdAt,
    updatedAt: e.updatedAt,
  };
}

export function toSmsResponse(s: ContactSms) {
  return {
    id: s.id,
    contactId: s.contactId,
    phoneNumber: s.phoneNumber,
    countryCode: s.countryCode,
    status: s.status,
    isPrimary: s.isPrimary,
    verifiedAt: s.verifiedAt,
    optedOutAt: s.optedOutAt,
    createdAt: s.createdAt,
    updatedAt: s.updatedAt,
  };
}

export function toWhatsappResponse(w: ContactWhatsapp) {
  return {
    id: w.id,
    contactId: w.contactId,
    phoneNumber: w.phoneNumber,
    countryCode: w.countryCode,
    status: w.status,
    isPrimary: w.isPrimary,
    isBusinessAccount: w.isBusinessAccount,
    lastSeenAt: w.lastSeenAt,
    verifiedAt: w.verifiedAt,
    createdAt: w.createdAt,
    updatedAt: w.updatedAt,
  };
}

export function toTelegramResponse(t: ContactTelegram) {
  return {
    id: t.id,
    contactId: t.contactId,
    phoneNumber: t.phoneNumber,
    countryCode: t.countryCode,
    username: t.username,
    status: t.status,
    isPrimary: t.isPrimary,
    lastActiveAt: t.lastActiveAt,
    createdAt: t.createdAt,
    updatedAt: t.updatedAt,
  };
}

export function toImessageResponse(i: ContactImessage) {
  return {
    id: i.id,
    contactId: i.contactId,
    appleId: i.appleId,
    phoneNumber: i.phoneNumber,
    status: i.status,
    isPrimary: i.isPrimary,
    verifiedAt: i.verifiedAt,
    createdAt: i.createdAt,
    updatedAt: i.updatedAt,
  };
}

export function toPushResponse(p: ContactPush) {
  return {
    id: p.id,
    contactId: p.contactId,
    deviceToken: p.deviceToken,
    platform: p.platform,
    status: p.status,
    appVersion: p.appVersion,
    deviceInfo: p.deviceInfo,
    isPrimary: p.isPrimary,
    lastUsedAt: p.lastUsedAt,
    expiresAt: p.expiresAt,
    createdAt: p.createdAt,
    updatedAt: p.updatedAt,
  };
}

/** A ContactTag; `withCount` false reports contactCount 0 (embedded tags, §5). */
export function toTagResponse(t: ContactTag, withCount = false) {
  return {
    id: t.id,
    organizationId: t.organizationId,
    name: t.name,
    contactCount: withCount ? t.contactCount : 0,
    createdAt: t.createdAt,
    updatedAt: t.updatedAt,
  };
}

/** The unpaginated tag listing selects id and name only. */
export function toTagNameResponse(t: { id: string; name: string }) {
  return { id: t.id, name: t.name, contactCount: 0 };
}

export function toListResponse(v: ListView) {
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
    createdAt: l.createdAt,
    updatedAt: l.updatedAt,
  };
}

export function toMembershipResponse(v: MembershipView) {
  const m = v.membership;
  const out: Record<string, unknown> = {
    id: m.id,
    contactId: m.contactId,
    contactListId: m.contactListId,
    status: m.status,
    subscribedAt: m.subscribedAt,
    unsubscribedAt: m.unsubscribedAt,
    unsubscribeReason: m.unsubscribeReason,
    createdAt: m.createdAt,
    updatedAt: m.updatedAt,
  };
  if (v.contact) out.contact = toContactSummaryResponse(v.contact);
  if (v.contactList) out.contactList = toListResponse(v.contactList);
  return out;
}

export function toContactResponse(v: ContactView) {
  const c = v.contact;
  const out: Record<string, unknown> = {
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
    lastActivityAt: c.lastActivityAt,
    tags: v.tags,
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
  };
  if (v.emails) out.emails = v.emails.map(toEmailResponse);
  if (v.smsNumbers) out.smsNumbers = v.smsNumbers.map(toSmsResponse);
  if (v.whatsappAccounts) out.whatsappAccounts = v.whatsappAccounts.map(toWhatsappResponse);
  if (v.telegramAccounts) out.telegramAccounts = v.telegramAccounts.map(toTelegramResponse);
  if (v.imessageAccounts) out.imessageAccounts = v.imessageAccounts.map(toImessageResponse);
  if (v.pushNotifications) out.pushNotifications = v.pushNotifications.map(toPushResponse);
  if (v.tagRecords) out.tagRecords = v.tagRecords.map((t) => toTagResponse(t));
  if (v.listMemberships) out.listMemberships = v.listMemberships.map(toMembershipResponse);
  return out;
}

/** ContactSummary: the contact fields embedded in list memberships. */
export function toContactSummaryResponse(v: ContactView) {
  const c = v.contact;
  const out: Record<string, unknown> = {
    id: c.id,
    organizationId: c.organizationId,
    firstName: c.firstName,
    lastName: c.lastName,
    displayName: c.displayName,
    status: c.status,
    tags: v.tags,
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
  };
  if (v.emails) out.emails = v.emails.map(toEmailResponse);
  return out;
}
