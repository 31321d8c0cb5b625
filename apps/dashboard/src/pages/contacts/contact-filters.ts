// The query parameters of GET /contacts (§5) as the filter bar offers them; the statuses and
// channels it lists are the OpenAPI document's (api/schema-values.ts).
import type { components } from '../../api/schema';
import type { ContactStatus } from '../../api/types';

type AppliedFilters = components['schemas']['ContactAppliedFiltersResponse'];
export type SortField = AppliedFilters['sortBy'];
export type SortOrder = AppliedFilters['sortOrder'];

/** Each sort field's label, in the order the sort select offers them. */
export const SORT_FIELD_LABELS: Record<SortField, string> = {
  createdAt: 'Created',
  updatedAt: 'Updated',
  lastActivityAt: 'Last activity',
  firstName: 'First name',
  lastName: 'Last name',
};

/** Each sort order's label, in the order the order select offers them. */
export const SORT_ORDER_LABELS: Record<SortOrder, string> = {
  desc: 'Newest first',
  asc: 'Oldest first',
};

export const STATUS_COLOR: Record<ContactStatus, string> = {
  active: 'green',
  inactive: 'gray',
  archived: 'orange',
};
