// Field sets of the spec (§ Resources) and small helpers shared by the contacts e2e files.
import { Session } from '../support/session';

export const CONTACT_KEYS = [
  'id',
  'organizationId',
  'firstName',
  'lastName',
  'displayName',
  'timezone',
  'language',
  'status',
  'customFields',
  'notes',
  'lastActivityAt',
  'tags',
  'createdAt',
  'updatedAt',
];
export const CHANNEL_ARRAY_KEYS = [
  'emails',
  'smsNumbers',
  'whatsappAccounts',
  'telegramAccounts',
  'imessageAccounts',
  'pushNotifications',
];
export const EMAIL_KEYS = [
  'id',
  'contactId',
  'organizationId',
  'email',
  'status',
  'isPrimary',
  'bounceCount',
  'complaintCount',
  'verifiedAt',
  'lastBouncedAt',
  'lastComplainedAt',
  'createdAt',
  'updatedAt',
];
export const SMS_KEYS = [
  'id',
  'contactId',
  'phoneNumber',
  'countryCode',
  'status',
  'isPrimary',
  'verifiedAt',
  'optedOutAt',
  'createdAt',
  'updatedAt',
];
export const WHATSAPP_KEYS = [
  'id',
  'contactId',
  'phoneNumber',
  'countryCode',
  'status',
  'isPrimary',
  'isBusinessAccount',
  'lastSeenAt',
  'verifiedAt',
  'createdAt',
  'updatedAt',
];
export const TELEGRAM_KEYS = [
  'id',
  'contactId',
  'phoneNumber',
  'countryCode',
  'username',
  'status',
  'isPrimary',
  'lastActiveAt',
  'createdAt',
  'updatedAt',
];
export const IMESSAGE_KEYS = [
  'id',
  'contactId',
  'appleId',
  'phoneNumber',
  'status',
  'isPrimary',
  'verifiedAt',
  'createdAt',
  'updatedAt',
];
export const PUSH_KEYS = [
  'id',
  'contactId',
  'deviceToken',
  'platform',
  'status',
  'appVersion',
  'deviceInfo',
  'isPrimary',
  'lastUsedAt',
  'expiresAt',
  'createdAt',
  'updatedAt',
];
export const TAG_KEYS = ['id', 'name', 'contactCount', 'organizationId', 'createdAt', 'updatedAt'];
export const MEMBERSHIP_KEYS = [
  'id',
  'contactId',
  'contactListId',
  'status',
  'subscribedAt',
  'unsubscribedAt',
  'unsubscribeReason',
  'createdAt',
  'updatedAt',
];
export const LIST_KEYS = [
  'id',
  'cuid',
  'organizationId',
  'name',
  'description',
  'status',
  'preferredChannels',
  'tags',
  'isDefault',
  'subscriberCount',
  'createdAt',
  'updatedAt',
];
export const SUMMARY_KEYS = [
  'id',
  'organizationId',
  'firstName',
  'lastName',
  'displayName',
  'status',
  'tags',
  'createdAt',
  'updatedAt',
];

export const keys = (o: object) => Object.keys(o).sort();
export const sorted = (k: string[]) => [...k].sort();

export const CONTACTS = '/api/v1/user/contacts';
export const TAGS = '/api/v1/user/contact-tags';
export const LISTS = '/api/v1/user/contact-lists';

/** Creates a contact through the API and returns its body, failing loudly on anything but 201. */
export async function createContact(
  s: Session,
  body: Record<string, unknown>,
): Promise<Record<string, unknown> & { id: string }> {
  const res = await s.http.post(CONTACTS, body);
  if (res.status !== 201)
    throw new Error(`create contact: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data;
}

export async function createList(
  s: Session,
  body: Record<string, unknown>,
): Promise<Record<string, unknown> & { id: string }> {
  const res = await s.http.post(LISTS, body);
  if (res.status !== 201) throw new Error(`create list: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data;
}

/** The `rule` of the first error on `field` in a 422 body. */
export function ruleOf(body: { errors?: { field: string; rule: string }[] }, field: string) {
  return body.errors?.find((e) => e.field === field)?.rule;
}

/** Every rule reported on `field` in a 422 body. */
export function rulesOf(body: { errors?: { field: string; rule: string }[] }, field: string) {
  return (body.errors ?? []).filter((e) => e.field === field).map((e) => e.rule);
}
