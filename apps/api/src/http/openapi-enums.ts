// Enums the OpenAPI document names: each is one component schema that every property holding its
// values refers to, so a client has it as one type and can list its values.
import {
  CONTACT_CHANNELS,
  CONTACT_STATUSES,
  EMAIL_STATUSES,
  EVENT_TYPES,
  MESSAGE_STATUSES,
  SCOPES,
} from '@app/domain';

export const SCOPE = { enum: SCOPES, enumName: 'Scope' } as const;
export const WEBHOOK_EVENT_TYPE = { enum: EVENT_TYPES, enumName: 'WebhookEventType' } as const;
export const CONTACT_STATUS = { enum: CONTACT_STATUSES, enumName: 'ContactStatus' } as const;
/** A contact's channels, also a campaign's and a segment rule's. */
export const CHANNEL = { enum: CONTACT_CHANNELS, enumName: 'Channel' } as const;
export const EMAIL_STATUS = { enum: EMAIL_STATUSES, enumName: 'EmailStatus' } as const;
export const MESSAGE_STATUS = { enum: MESSAGE_STATUSES, enumName: 'MessageStatus' } as const;
