import { Badge } from '@mantine/core';

export const MESSAGE_STATUSES = [
  'queued',
  'deferred',
  'delivered',
  'partially_delivered',
  'bounced',
  'failed',
  'suppressed',
] as const;

const COLOR: Record<string, string> = {
  queued: 'blue',
  deferred: 'yellow',
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
