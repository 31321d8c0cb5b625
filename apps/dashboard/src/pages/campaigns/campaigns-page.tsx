import { Anchor, Button, Table } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { IconPlus } from '@tabler/icons-react';
import { Link, useNavigate } from 'react-router';
import { api, pageOf } from '../../api/client';
import { PageHeader } from '../../components/page-header';
import { Paginator } from '../../components/paginator';
import { EmptyState, QueryState } from '../../components/query-state';
import { useOrgQuery } from '../../hooks/use-org-query';
import { formatCount, formatDateTime } from '../../lib/format';
import { useQueryState } from '../../lib/use-page';
import { CampaignProgress, CampaignStatusBadge } from './campaign-status';
import { NewCampaignModal } from './new-campaign-modal';

export function CampaignsPage() {
  const navigate = useNavigate();
  const [creating, { open, close }] = useDisclosure(false);
  const { page, setPage } = useQueryState([]);
  const campaigns = useOrgQuery(
    ['campaigns', page],
    () => pageOf(api.GET('/api/v1/user/campaigns', { params: { query: { page, limit: 20 } } })),
    { refetchInterval: (d) => (d?.data.some((c) => c.status === 'sending') ? 2000 : false) },
  );
  const rows = campaigns.data?.data ?? [];
  return (
    <>
      <PageHeader
        title="Campaigns"
        description="Messages to a list's subscribers or a segment's contacts, each on the first of the campaign's channels it can be reached on."
        actions={
          <Button leftSection={<IconPlus size={16} />} onClick={open}>
            New campaign
          </Button>
        }
      />
      <QueryState
        isLoading={campaigns.isLoading}
        error={campaigns.error}
        isEmpty={rows.length === 0}
        empty={<EmptyState title="No campaigns yet" />}
      >
        <Table highlightOnHover>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Name</Table.Th>
              <Table.Th>Status</Table.Th>
              <Table.Th w={160}>Progress</Table.Th>
              <Table.Th>Recipients</Table.Th>
              <Table.Th>Sent</Table.Th>
              <Table.Th>Failed</Table.Th>
              <Table.Th>Created</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((c) => (
              <Table.Tr key={c.id}>
                <Table.Td>
                  <Anchor component={Link} to={`/campaigns/${c.id}`} size="sm" fw={500}>
                    {c.name}
                  </Anchor>
                </Table.Td>
                <Table.Td>
                  <CampaignStatusBadge status={c.status} />
                </Table.Td>
                <Table.Td>
                  <CampaignProgress c={c} label={`Progress of ${c.name}`} />
                </Table.Td>
                <Table.Td>{formatCount(c.recipientCount)}</Table.Td>
                <Table.Td>{formatCount(c.sentCount)}</Table.Td>
                <Table.Td>{formatCount(c.failedCount)}</Table.Td>
                <Table.Td>{formatDateTime(c.createdAt)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
        <Paginator meta={campaigns.data?.meta} onChange={setPage} />
      </QueryState>
      <NewCampaignModal
        opened={creating}
        onClose={close}
        onCreated={(c) => {
          close();
          navigate(`/campaigns/${c.id}`);
        }}
      />
    </>
  );
}
