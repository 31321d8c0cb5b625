// The event types of the platform (§10): what a webhook endpoint subscribes to and what `Events`
// accepts. Each area builds its own payloads (`<area>/<thing>.events.ts`).
export const EVENT_TYPES = [
  'email.sent',
  'email.delivered',
  'email.deferred',
  'email.bounced',
  'email.opened',
  'email.clicked',
  'email.complained',
  'message.sent',
  'message.delivered',
  'message.failed',
  'message.read',
  'contact.created',
  'contact.updated',
  'contact.deleted',
  'contact.unsubscribed',
  'campaign.sent',
  'push.token_invalidated',
  'test.event',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export function isEventType(value: string): value is EventType {
  return (EVENT_TYPES as readonly string[]).includes(value);
}
