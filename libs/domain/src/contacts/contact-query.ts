// The GET /contacts query (§5): names, defaults, allowed values and the meta descriptors.
import { CONTACT_CHANNELS, ContactChannel } from './contact-channels.entity';
import { CONTACT_STATUSES, ContactStatus } from './contact.entity';

export const CONTACT_SORT_FIELDS = [
  'firstName',
  'lastName',
  'createdAt',
  'updatedAt',
  'lastActivityAt',
] as const;
export type ContactSortField = (typeof CONTACT_SORT_FIELDS)[number];
export const SORT_ORDERS = ['asc', 'desc'] as const;
export type SortOrder = (typeof SORT_ORDERS)[number];

export const CONTACTS_MAX_LIMIT = 100;
export const CONTACTS_DEFAULT_LIMIT = 20;

export interface ContactListQueryInput {
  page?: number;
  limit?: number;
  search?: string;
  status?: ContactStatus;
  channel?: ContactChannel;
  sortBy?: ContactSortField;
  sortOrder?: SortOrder;
}

/** The executed query with defaults filled and absent filters as null (meta.appliedFilters). */
export interface ContactListQuery {
  page: number;
  limit: number;
  search: string | null;
  status: ContactStatus | null;
  channel: ContactChannel | null;
  sortBy: ContactSortField;
  sortOrder: SortOrder;
}

export function normaliseContactListQuery(q: ContactListQueryInput): ContactListQuery {
  const search = q.search?.trim();
  return {
    page: q.page ?? 1,
    limit: q.limit ?? CONTACTS_DEFAULT_LIMIT,
    search: search ? search : null,
    status: q.status ?? null,
    channel: q.channel ?? null,
    sortBy: q.sortBy ?? 'createdAt',
    sortOrder: q.sortOrder ?? 'desc',
  };
}

/** meta.filters: every accepted filter with its available values. */
export const CONTACT_LIST_FILTERS = {
  status: { type: 'enum', values: [...CONTACT_STATUSES] },
  channel: { type: 'enum', values: [...CONTACT_CHANNELS] },
  sortBy: { type: 'enum', values: [...CONTACT_SORT_FIELDS] },
  sortOrder: { type: 'enum', values: [...SORT_ORDERS] },
  search: { type: 'string', minLength: 1 },
  page: { type: 'integer', min: 1 },
  limit: { type: 'integer', min: 1, max: CONTACTS_MAX_LIMIT },
} as const;
