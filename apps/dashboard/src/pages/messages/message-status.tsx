// A message's channel and status as the message log shows them.
import { Badge } from '@mantine/core';
import type { components } from '../../api/schema';
import type { MessageStatus } from '../../api/types';

type Schemas = components['schemas'];
export type MessageChannel = Schemas['MessageSummaryResponse']['channel'];
/** What a badge shows: a message's or an attempt's status, or an engagement event's type. */
type BadgeStatus =
  | MessageStatus
  | Schemas['DeliveryAttemptResponse']['status']
  | Schemas['EngagementEventResponse']['type'];

/** Each channel of the message log, in the order of the Channel filter. */
export const MESSAGE_CHANNEL_LABEL: Record<MessageChannel, string> = {
  email: 'Email',
  sms: 'SMS',
  push: 'Push',
  whatsapp: 'WhatsApp',
  telegram: 'Telegram',
  imessage: 'iMessage',
};

export function channelLabel(channel: string | undefined): string {
  return MESSAGE_CHANNEL_LABEL[(channel ?? 'email') as MessageChannel] ?? channel;
}

const COLOR: Record<BadgeStatus, string> = {
  queued: 'blue',
  deferred: 'yellow',
  sent: 'teal',
  delivered: 'green',
  partially_delivered: 'yellow',
  bounced: 'red',
  failed: 'red',
  suppressed: 'gray',
  opened: 'teal',
  clicked: 'indigo',
  unsubscribed: 'orange',
  complained: 'red',
};

export function MessageStatusBadge({ status }: { status: BadgeStatus }) {
  return (
    <Badge variant="light" color={COLOR[status] ?? 'gray'}>
      {status.replace(/_/g, ' ')}
    </Badge>
  );
}
