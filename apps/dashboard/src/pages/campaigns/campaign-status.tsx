import { Badge, Progress } from '@mantine/core';
import type { Campaign } from '../../api/types';

const COLOR: Record<Campaign['status'], string> = {
  draft: 'gray',
  sending: 'indigo',
  sent: 'green',
  cancelled: 'orange',
};

export function CampaignStatusBadge({ status }: { status: Campaign['status'] }) {
  return (
    <Badge variant="light" color={COLOR[status] ?? 'gray'} data-testid="campaign-status">
      {status}
    </Badge>
  );
}

export function campaignPercent(c: Campaign): number {
  if (c.status === 'sent') return 100;
  return c.recipientCount
    ? Math.floor(((c.sentCount + c.failedCount) / c.recipientCount) * 100)
    : 0;
}

export function CampaignProgress({ c, label }: { c: Campaign; label: string }) {
  return (
    <Progress value={campaignPercent(c)} animated={c.status === 'sending'} aria-label={label} />
  );
}
