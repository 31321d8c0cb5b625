// Response shapes of tags (§5).
import { ApiProperty } from '@nestjs/swagger';
import { contactTagPayload } from '@app/domain';
import type { ContactTag, ContactTagPayload } from '@app/domain';
import { INSTANT, UUID } from '../http/openapi-properties';

/** A tag. */
export class ContactTagResponse implements ContactTagPayload {
  @ApiProperty(UUID)
  id: string;

  @ApiProperty(UUID)
  organizationId: string;

  name: string;

  /** Contacts carrying the tag; 0 in a contact's `tagRecords`. */
  contactCount: number;

  @ApiProperty(INSTANT)
  createdAt: string;

  @ApiProperty(INSTANT)
  updatedAt: string;
}

/** A tag of the unpaginated listing: id and name. */
export class ContactTagNameResponse {
  @ApiProperty(UUID)
  id: string;

  name: string;

  /** Always 0: this listing does not count contacts. */
  @ApiProperty({ enum: [0] })
  contactCount: 0;
}

export function toContactTagResponse(t: ContactTag): ContactTagResponse {
  return contactTagPayload(t, t.contactCount);
}

export function toContactTagNameResponse(t: { id: string; name: string }): ContactTagNameResponse {
  return { id: t.id, name: t.name, contactCount: 0 };
}
