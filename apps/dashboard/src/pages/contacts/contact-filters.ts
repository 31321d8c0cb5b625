// The query parameters of GET /contacts (§5), as the filter bar offers them.
export const CONTACT_STATUSES = ['active', 'inactive', 'archived'] as const;
export const CHANNELS = ['email', 'sms', 'whatsapp', 'telegram', 'imessage', 'push'] as const;
export const SORT_FIELDS = [
  { value: 'createdAt', label: 'Created' },
  { value: 'updatedAt', label: 'Updated' },
  { value: 'lastActivityAt', label: 'Last activity' },
  { value: 'firstName', label: 'First name' },
  { value: 'lastName', label: 'Last name' },
] as const;

export type ContactStatus = (typeof CONTACT_STATUSES)[number];
export type Channel = (typeof CHANNELS)[number];
export type SortField = (typeof SORT_FIELDS)[number]['value'];

export const STATUS_COLOR: Record<string, string> = {
  active: 'green',
  inactive: 'gray',
  archived: 'orange',
};
