// The status badge of a provider account, and what each status means.
import { Badge } from '@mantine/core';
import type { ChannelProvider } from '../../api/types';

type ProviderStatus = ChannelProvider['status'];

const COLOR: Record<ProviderStatus, string> = {
  active: 'green',
  failing: 'red',
  disabled: 'gray',
};

export const STATUS_HELP: Record<ProviderStatus, string> = {
  active: 'Messages go out through this account.',
  failing:
    'The provider refused these credentials 3 times in a row. Replace them; the next send the provider accepts makes the account active again.',
  disabled: 'Nothing is sent through this account until it is enabled again.',
};

export function ProviderStatusBadge({
  status,
  testId,
}: {
  status: ProviderStatus;
  testId?: string;
}) {
  return (
    <Badge variant="light" color={COLOR[status]} data-testid={testId}>
      {status}
    </Badge>
  );
}
