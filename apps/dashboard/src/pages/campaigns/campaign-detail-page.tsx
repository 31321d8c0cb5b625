// One campaign: what it sends to whom and on which channels, send (confirmed), its progress while
// it sends, and its counts by channel.
import { Anchor, Badge, Button, Group, Paper, SimpleGrid, Stack, Text } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { api, dataOf, unwrap } from '../../api/client';
import { PageHeader } from '../../components/page-header';
import { QueryState } from '../../components/query-state';
import { StatCard } from '../../components/stat-card';
import { useOrgQuery } from '../../hooks/use-org-query';
import { confirmDestructive } from '../../lib/confirm';
import { formatCount, formatDateTime } from '../../lib/format';
import { runChange } from '../../lib/mutate';
import { CampaignByChannel } from './campaign-by-channel';
import { channelLabel } from './campaign-channels';
import { campaignPercent, CampaignProgress, CampaignStatusBadge } from './campaign-status';

export function CampaignDetailPage() {
  const { id = '' } = useParams();
  const queries = useQueryClient();
  const campaign = useOrgQuery(
    ['campaign', id],
    () => dataOf(api.GET('/api/v1/user/campaigns/{id}', { params: { path: { id } } })),
    { refetchInterval: (c) => (c?.status === 'sending' ? 1000 : false) },
  );
  const c = campaign.data;
  const channels = c?.channels ?? [];
  const send = () =>
    confirmDestructive({
      title: 'Send campaign',
      body: 'The campaign is sent now to every subscribed contact of its audience. A sent campaign cannot be recalled.',
      confirmLabel: 'Send now',
      onConfirm: () =>
        void runChange(
          queries,
          () => unwrap(api.POST('/api/v1/user/campaigns/{id}/send', { params: { path: { id } } })),
          'Campaign is sending',
        ),
    });

  return (
    <QueryState isLoading={campaign.isLoading} error={campaign.error}>
      {c && (
        <>
          <PageHeader
            title={c.name}
            description={
              channels.includes('email')
                ? `${c.subject} · from ${c.from}`
                : `On ${channels.map(channelLabel).join(', ')}`
            }
            actions={
              c.status === 'draft' && (
                <Button onClick={send} color="indigo">
                  Send campaign
                </Button>
              )
            }
          />
          <Stack>
            <Paper withBorder p="md" radius="md">
              <Group justify="space-between" mb="sm">
                <CampaignStatusBadge status={c.status} />
                <Text size="sm" data-testid="campaign-percent">
                  {campaignPercent(c)} %
                </Text>
              </Group>
              <CampaignProgress c={c} label="Sending progress" />
              <Group mt="sm" gap="lg">
                <Text size="sm">
                  To:{' '}
                  {c.listId ? (
                    <Anchor component={Link} to={`/lists/${c.listId}`}>
                      list
                    </Anchor>
                  ) : (
                    <Anchor component={Link} to={`/segments/${c.segmentId}`}>
                      segment
                    </Anchor>
                  )}
                </Text>
                <Group gap={6} data-testid="campaign-channels">
                  <Text size="sm">Channels, in order:</Text>
                  {channels.map((ch, i) => (
                    <Badge key={ch} variant="light" color="indigo">
                      {i + 1}. {channelLabel(ch)}
                    </Badge>
                  ))}
                </Group>
                {c.startedAt && <Text size="sm">Started {formatDateTime(c.startedAt)}</Text>}
                {c.completedAt && <Text size="sm">Finished {formatDateTime(c.completedAt)}</Text>}
              </Group>
            </Paper>
            <SimpleGrid cols={{ base: 2, md: 4 }}>
              <StatCard
                label="Recipients"
                value={formatCount(c.recipientCount)}
                testId="campaign-recipients"
              />
              <StatCard label="Sent" value={formatCount(c.sentCount)} testId="campaign-sent" />
              <StatCard label="Failed" value={formatCount(c.failedCount)} />
              <StatCard
                label="Unreachable"
                value={formatCount(c.unreachableCount ?? 0)}
                testId="campaign-unreachable"
              />
            </SimpleGrid>
            {c.status !== 'draft' && (
              <CampaignByChannel channels={channels} byChannel={c.byChannel ?? {}} />
            )}
            {c.status !== 'draft' && (
              <Anchor component={Link} to={`/messages?campaignId=${c.id}`} size="sm">
                See this campaign's messages
              </Anchor>
            )}
          </Stack>
        </>
      )}
    </QueryState>
  );
}
