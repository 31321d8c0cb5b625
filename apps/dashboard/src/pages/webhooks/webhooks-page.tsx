// Webhook endpoints with their success rates, the organization's statistics, create.
import { Anchor, Badge, Button, Code, SimpleGrid, Table, Text } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { IconPlus } from '@tabler/icons-react';
import { useState } from 'react';
import { Link } from 'react-router';
import { api, dataOf, pageOf } from '../../api/client';
import { PageHeader } from '../../components/page-header';
import { Paginator } from '../../components/paginator';
import { EmptyState, QueryState } from '../../components/query-state';
import { StatCard } from '../../components/stat-card';
import { useOrgQuery } from '../../hooks/use-org-query';
import { formatCount, formatDateTime, formatPercent } from '../../lib/format';
import { useQueryState } from '../../lib/use-page';
import { EndpointFormModal } from './endpoint-form';
import { SecretModal } from './secret-modal';
import { SECRET_PLACEHOLDER } from './webhook-rules';

export function WebhooksPage() {
  const [creating, { open, close }] = useDisclosure(false);
  const [secret, setSecret] = useState<string | null>(null);
  const { page, setPage } = useQueryState([]);
  const stats = useOrgQuery(['webhook-stats'], () =>
    dataOf(api.GET('/api/v1/user/webhook-endpoints/statistics')),
  );
  const endpoints = useOrgQuery(['webhook-endpoints', page], () =>
    pageOf(api.GET('/api/v1/user/webhook-endpoints', { params: { query: { page, limit: 20 } } })),
  );
  const rows = endpoints.data?.data ?? [];
  const st = stats.data;

  return (
    <>
      <PageHeader
        title="Webhooks"
        description="Your servers receive signed HTTP requests when events happen."
        actions={
          <Button leftSection={<IconPlus size={16} />} onClick={open}>
            New endpoint
          </Button>
        }
      />
      <SimpleGrid cols={{ base: 2, md: 4 }} mb="lg">
        <StatCard
          label="Endpoints"
          value={formatCount(st?.totalEndpoints)}
          extra={st && <Text size="xs">{st.activeEndpoints} active</Text>}
        />
        <StatCard
          label="Failing"
          value={formatCount(st?.failingEndpoints)}
          extra={<Text size="xs">below 95 %</Text>}
        />
        <StatCard label="Deliveries" value={formatCount(st?.totalDeliveries)} />
        <StatCard label="Success rate" value={st ? formatPercent(st.overallSuccessRate) : '—'} />
      </SimpleGrid>
      <QueryState
        isLoading={endpoints.isLoading}
        error={endpoints.error}
        isEmpty={rows.length === 0}
        empty={
          <EmptyState title="No endpoints yet">
            Add the URL of a server that should receive events.
          </EmptyState>
        }
      >
        <Table.ScrollContainer minWidth={860}>
          <Table highlightOnHover>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Endpoint</Table.Th>
                <Table.Th>Status</Table.Th>
                <Table.Th>Events</Table.Th>
                <Table.Th>Secret</Table.Th>
                <Table.Th>Success rate</Table.Th>
                <Table.Th>Deliveries</Table.Th>
                <Table.Th>Last event</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((e) => (
                <Table.Tr key={e.id}>
                  <Table.Td maw={320}>
                    <Anchor
                      component={Link}
                      to={`/webhooks/${e.id}`}
                      size="sm"
                      fw={500}
                      style={{ wordBreak: 'break-all' }}
                    >
                      {e.url}
                    </Anchor>
                    {e.description && (
                      <Text size="xs" c="dimmed">
                        {e.description}
                      </Text>
                    )}
                  </Table.Td>
                  <Table.Td>
                    <Badge variant="light" color={e.isActive ? 'green' : 'gray'}>
                      {e.isActive ? 'active' : 'inactive'}
                    </Badge>
                  </Table.Td>
                  <Table.Td>{e.events.length}</Table.Td>
                  <Table.Td>
                    <Code data-testid="secret-placeholder">{SECRET_PLACEHOLDER}</Code>
                  </Table.Td>
                  <Table.Td>{e.totalDeliveries ? formatPercent(e.successRate) : '—'}</Table.Td>
                  <Table.Td>{formatCount(e.totalDeliveries)}</Table.Td>
                  <Table.Td>{formatDateTime(e.lastTriggeredAt)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
        <Paginator meta={endpoints.data?.meta} onChange={setPage} />
      </QueryState>
      <EndpointFormModal
        opened={creating}
        onClose={close}
        onSaved={(_, s) => {
          close();
          setSecret(s);
        }}
      />
      <SecretModal secret={secret} onClose={() => setSecret(null)} />
    </>
  );
}
