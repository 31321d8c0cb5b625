// A message's channel and status as the message log shows them.
import { Badge } from '@mantine/core';

/** The channels of the message log, in the order of the Channel filter. */
export const MESSAGE_CHANNELS = [
  'email',
  'sms',
  'push',
  'whatsapp',
  'telegram',
  'imessage',
] as const;
export type MessageChannel = (typeof MESSAGE_CHANNELS)[number];

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

export const MESSAGE_STATUSES = [
  'queued',
  'deferred',
  'sent',
  'delivered',
  'partially_delivered',
  'bounced',
  'failed',
  'suppressed',
] as const;

const COLOR: Record<string, string> = {
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

export function MessageStatusBadge({ status }: { status: string }) {
  return (
    <Badge variant="light" color={COLOR[status] ?? 'gray'}>
      {status.replace(/_/g, ' ')}
    </Badge>
  );
}
