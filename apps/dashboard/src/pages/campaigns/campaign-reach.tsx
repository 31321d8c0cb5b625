// The expected reach of a campaign before it is sent: how many contacts of the list or segment
// each channel of the order would carry the message to, and how many none would (a count from
// POST /campaigns/reach; nothing is sent). Asked again, debounced, when the target or order changes.
import { Alert, Group, Loader, Paper, Progress, Stack, Text, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { api, dataOf } from '../../api/client';
import { errorMessage } from '../../api/errors';
import { useOrgQuery } from '../../hooks/use-org-query';
import { formatCount } from '../../lib/format';
import { type CampaignChannel, channelLabel, type ReachRequest } from './campaign-channels';

const DEBOUNCE_MS = 400;

export function CampaignReach(props: {
  listId: string | null;
  segmentId: string | null;
  channels: CampaignChannel[];
}) {
  const request: ReachRequest | null =
    props.channels.length === 0
      ? null
      : props.listId
        ? { listId: props.listId, channels: props.channels }
        : props.segmentId
          ? { segmentId: props.segmentId, channels: props.channels }
          : null;
  const [debounced] = useDebouncedValue(request, DEBOUNCE_MS);
  const key = JSON.stringify(debounced);
  const reach = useOrgQuery(
    ['campaign-reach', key],
    () => dataOf(api.POST('/api/v1/user/campaigns/reach', { body: debounced! })),
    { enabled: debounced !== null },
  );
  const settled = JSON.stringify(request) === key && !reach.isFetching;
  const r = reach.data;

  return (
    <Paper withBorder p="md" radius="md" data-testid="campaign-reach" aria-busy={!settled}>
      <Group justify="space-between" mb="xs">
        <Title order={2} size="h5">
          Expected reach
        </Title>
        {request && !settled && <Loader size="xs" role="status" aria-label="Counting" />}
      </Group>
      {!request ? (
        <Text size="sm" c="dimmed">
          Choose a list or segment to see how many contacts each channel reaches.
        </Text>
      ) : reach.error ? (
        <Alert color="red" role="alert">
          {errorMessage(reach.error)}
        </Alert>
      ) : r ? (
        <Stack gap="xs">
          <Text size="sm">
            <Text span fw={700} data-testid="reach-total">
              {formatCount(r.total)}
            </Text>{' '}
            contacts in the audience
          </Text>
          {(debounced?.channels ?? []).map((c) => {
            const n = r.byChannel[c] ?? 0;
            return (
              <div key={c} data-testid={`reach-${c}`} data-count={n}>
                <Group justify="space-between" gap="xs">
                  <Text size="sm">{channelLabel(c)}</Text>
                  <Text size="sm" fw={600}>
                    {formatCount(n)}
                  </Text>
                </Group>
                <Progress
                  value={r.total ? (n / r.total) * 100 : 0}
                  size="sm"
                  color="indigo"
                  aria-label={`${channelLabel(c)}: ${n} of ${r.total}`}
                />
              </div>
            );
          })}
          <Group justify="space-between" gap="xs">
            <Text size="sm" c={r.unreachable ? 'dark' : 'dimmed'}>
              Reachable on none
            </Text>
            <Text size="sm" fw={600} data-testid="reach-unreachable">
              {formatCount(r.unreachable)}
            </Text>
          </Group>
          <Text size="xs" c="dimmed">
            Each contact counts once, on the first channel of the order it can be reached on with a
            connected provider.
          </Text>
        </Stack>
      ) : (
        <Loader size="sm" role="status" aria-label="Counting" />
      )}
    </Paper>
  );
}
