// Response shapes of contacts (§5): a contact with its channel records, tags and memberships, and
// the meta of GET /contacts.
import { ApiProperty } from '@nestjs/swagger';
import { CONTACT_SORT_FIELDS, contactPayload, SORT_ORDERS } from '@app/domain';
import type {
  ContactChannel,
  ContactListQuery,
  ContactPayload,
  ContactSortField,
  ContactStatus,
  ListedContactView,
  SortOrder,
} from '@app/domain';
import {
  FREE_OBJECT,
  FREE_OBJECT_OR_NULL,
  INSTANT,
  INSTANT_OR_NULL,
  STRING_OR_NULL,
  UUID,
} from '../http/openapi-properties';
import { PageMetaResponse } from '../http/page-meta.response';
import {
  ContactEmailResponse,
  ContactImessageResponse,
  ContactPushResponse,
  ContactSmsResponse,
  ContactTelegramResponse,
  ContactWhatsappResponse,
} from './contact-channel.response';
import { ContactListMembershipResponse } from './contact-list.response';
import { ContactTagResponse } from './contact-tag.response';
import { CHANNEL, CONTACT_STATUS } from '../http/openapi-enums';

/**
 * A contact. GET /contacts/{id} and the writes carry every array; a GET /contacts page carries the
 * channel arrays; segment contacts and previews carry what the segment route loads.
 */
export class ContactResponse implements ContactPayload {
  @ApiProperty(UUID)
  id: string;

  @ApiProperty(UUID)
  organizationId: string;

  @ApiProperty(STRING_OR_NULL)
  firstName: string | null;

  @ApiProperty(STRING_OR_NULL)
  lastName: string | null;

  @ApiProperty(STRING_OR_NULL)
  displayName: string | null;

  @ApiProperty(STRING_OR_NULL)
  timezone: string | null;

  @ApiProperty(STRING_OR_NULL)
  language: string | null;

  @ApiProperty({ ...CONTACT_STATUS, nullable: true })
  status: ContactStatus | null;

  @ApiProperty(FREE_OBJECT_OR_NULL)
  customFields: Record<string, unknown> | null;

  @ApiProperty(STRING_OR_NULL)
  notes: string | null;

  @ApiProperty(INSTANT_OR_NULL)
  lastActivityAt: string | null;

  /** Tag names. */
  tags: string[];

  @ApiProperty(INSTANT)
  createdAt: string;

  @ApiProperty(INSTANT)
  updatedAt: string;

  emails?: ContactEmailResponse[];

  smsNumbers?: ContactSmsResponse[];

  whatsappAccounts?: ContactWhatsappResponse[];

  telegramAccounts?: ContactTelegramResponse[];

  imessageAccounts?: ContactImessageResponse[];

  pushNotifications?: ContactPushResponse[];

  tagRecords?: ContactTagResponse[];

  listMemberships?: ContactListMembershipResponse[];
}

/** The query GET /contacts ran: defaults filled, absent filters null. */
export class ContactAppliedFiltersResponse implements ContactListQuery {
  page: number;

  limit: number;

  @ApiProperty(STRING_OR_NULL)
  search: string | null;

  @ApiProperty({ ...CONTACT_STATUS, nullable: true })
  status: ContactStatus | null;

  @ApiProperty({ ...CHANNEL, nullable: true })
  channel: ContactChannel | null;

  @ApiProperty({ enum: CONTACT_SORT_FIELDS })
  sortBy: ContactSortField;

  @ApiProperty({ enum: SORT_ORDERS })
  sortOrder: SortOrder;
}

/** The meta of GET /contacts: pagination, the filters it accepts and those it applied. */
export class ContactPageMetaResponse extends PageMetaResponse {
  /** Per query parameter: its type and allowed values or bounds. */
  @ApiProperty(FREE_OBJECT)
  filters: Record<string, unknown>;

  appliedFilters: ContactAppliedFiltersResponse;
}

/** The contact as the contact events carry it (contact-payload.ts): the hot GET /contacts path. */
export const toContactResponse: (v: ListedContactView) => ContactResponse = contactPayload;
