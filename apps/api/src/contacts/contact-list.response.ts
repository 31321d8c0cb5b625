// Response shapes of contact lists and memberships (§5).
import { ApiProperty } from '@nestjs/swagger';
import {
  CHANNELS,
  contactListMembershipPayload,
  contactListPayload,
  LIST_STATUSES,
  MEMBERSHIP_STATUSES,
} from '@app/domain';
import type {
  Channel,
  ContactListMembershipPayload,
  ContactListPayload,
  ContactStatus,
  ContactView,
  ListStatus,
  ListView,
  MembershipStatus,
  MembershipView,
} from '@app/domain';
import { INSTANT, INSTANT_OR_NULL, STRING_OR_NULL, UUID } from '../http/openapi-properties';
import { ContactEmailResponse, toContactEmailResponse } from './contact-channel.response';
import { CONTACT_STATUS } from '../http/openapi-enums';

/** A contact list. */
export class ContactListResponse implements ContactListPayload {
  @ApiProperty(UUID)
  id: string;

  cuid: string;

  @ApiProperty(UUID)
  organizationId: string;

  name: string;

  @ApiProperty(STRING_OR_NULL)
  description: string | null;

  @ApiProperty({ enum: LIST_STATUSES })
  status: ListStatus;

  @ApiProperty({ enum: CHANNELS, isArray: true })
  preferredChannels: Channel[];

  /** Tag names; empty where the list is embedded in a contact's memberships. */
  tags: string[];

  isDefault: boolean;

  subscriberCount: number;

  @ApiProperty(INSTANT)
  createdAt: string;

  @ApiProperty(INSTANT)
  updatedAt: string;
}

/** The contact fields embedded in a list's members. */
export class ContactSummaryResponse {
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

  @ApiProperty({ ...CONTACT_STATUS, nullable: true })
  status: ContactStatus | null;

  /** Tag names. */
  tags: string[];

  @ApiProperty(INSTANT)
  createdAt: string;

  @ApiProperty(INSTANT)
  updatedAt: string;

  emails?: ContactEmailResponse[];
}

/** A contact's membership of a list. */
export class ContactListMembershipResponse implements ContactListMembershipPayload {
  @ApiProperty(UUID)
  id: string;

  @ApiProperty(UUID)
  contactId: string;

  @ApiProperty(UUID)
  contactListId: string;

  @ApiProperty({ enum: MEMBERSHIP_STATUSES })
  status: MembershipStatus;

  @ApiProperty(INSTANT)
  subscribedAt: string;

  @ApiProperty(INSTANT_OR_NULL)
  unsubscribedAt: string | null;

  @ApiProperty(STRING_OR_NULL)
  unsubscribeReason: string | null;

  @ApiProperty(INSTANT)
  createdAt: string;

  @ApiProperty(INSTANT)
  updatedAt: string;

  /** In a list's members. */
  contact?: ContactSummaryResponse;

  /** In a contact's memberships. */
  contactList?: ContactListResponse;
}

export const toContactListResponse: (v: ListView) => ContactListResponse = contactListPayload;

export function toContactSummaryResponse(v: ContactView): ContactSummaryResponse {
  const c = v.contact;
  const out: ContactSummaryResponse = {
    id: c.id,
    organizationId: c.organizationId,
    firstName: c.firstName,
    lastName: c.lastName,
    displayName: c.displayName,
    status: c.status,
    tags: v.tags,
    createdAt: c.createdAt.toISOString(),
    updatedAt: c.updatedAt.toISOString(),
  };
  if (v.emails) out.emails = v.emails.map(toContactEmailResponse);
  return out;
}

/** The membership as the contact events carry it, with the member's summary when read with it. */
export function toContactListMembershipResponse(v: MembershipView): ContactListMembershipResponse {
  const out: ContactListMembershipResponse = contactListMembershipPayload(v);
  if (v.contact) out.contact = toContactSummaryResponse(v.contact);
  return out;
}
