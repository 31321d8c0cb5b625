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
import type { Listed } from '../database/entity-rows';

/**
 * Timestamps leave as ISO 8601 strings (what JSON.stringify would produce from the Date): turning
 * them into strings here is several times cheaper than letting JSON call Date.toJSON on a
 * thousand dates per page. A string is already that text (a listed page, toListedEntities).
 */
function iso(d: Date | string | null | undefined): string | null {
  if (!d) return null;
  return typeof d === 'string' ? d : d.toISOString();
}

/** What `toContactResponse` reads: a ContactView, or a contact of a listed page. */
export interface ContactResponseSource {
  contact: Listed<Contact>;
  /** Tag names; empty when tags were not loaded. */
  tags: string[];
  emails?: Listed<ContactEmail>[];
  smsNumbers?: Listed<ContactSms>[];
  whatsappAccounts?: Listed<ContactWhatsapp>[];
  telegramAccounts?: Listed<ContactTelegram>[];
  imessageAccounts?: Listed<ContactImessage>[];
  pushNotifications?: Listed<ContactPush>[];
  tagRecords?: ContactTag[];
  listMemberships?: MembershipView[];
}

export interface ContactView extends ContactResponseSource {
  contact: Contact;
  emails?: ContactEmail[];
  smsNumbers?: ContactSms[];
  whatsappAccounts?: ContactWhatsapp[];
  telegramAccounts?: ContactTelegram[];
  imessageAccounts?: ContactImessage[];
  pushNotifications?: ContactPush[];
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

export function toEmailResponse(e: Listed<ContactEmail>) {
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

export function toSmsResponse(s: Listed<ContactSms>) {
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

export function toWhatsappResponse(w: Listed<ContactWhatsapp>) {
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

export function toTelegramResponse(t: Listed<ContactTelegram>) {
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

export function toImessageResponse(i: Listed<ContactImessage>) {
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

export function toPushResponse(p: Listed<ContactPush>) {
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

/** A ContactTag; `withCount` false reports contactCount 0 (embedded tags, §5). */
export function toTagResponse(t: ContactTag, withCount = false) {
  return {
    id: t.id,
    organizationId: t.organizationId,
    name: t.name,
    contactCount: withCount ? t.contactCount : 0,
    createdAt: iso(t.createdAt),
    updatedAt: iso(t.updatedAt),
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
    createdAt: iso(l.createdAt),
    updatedAt: iso(l.updatedAt),
  };
}

export function toMembershipResponse(v: MembershipView) {
  const m = v.membership;
  const out: Record<string, unknown> = {
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
  if (v.contact) out.contact = toContactSummaryResponse(v.contact);
  if (v.contactList) out.contactList = toListResponse(v.contactList);
  return out;
}

export function toContactResponse(v: ContactResponseSource) {
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
    lastActivityAt: iso(c.lastActivityAt),
    tags: v.tags,
    createdAt: iso(c.createdAt),
    updatedAt: iso(c.updatedAt),
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
    createdAt: iso(c.createdAt),
    updatedAt: iso(c.updatedAt),
  };
  if (v.emails) out.emails = v.emails.map(toEmailResponse);
  return out;
}
