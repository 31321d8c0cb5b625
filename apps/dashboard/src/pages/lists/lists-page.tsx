import { Anchor, Badge, Button, Table } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { IconPlus } from '@tabler/icons-react';
import { Link } from 'react-router';
import { api, pageOf } from '../../api/client';
import { PageHeader } from '../../components/page-header';
import { Paginator } from '../../components/paginator';
import { EmptyState, QueryState } from '../../components/query-state';
import { useOrgQuery } from '../../hooks/use-org-query';
import { formatCount, formatDateTime } from '../../lib/format';
import { useQueryState } from '../../lib/use-page';
import { NewListModal } from './new-list-modal';

export function ListsPage() {
  const [creating, { open, close }] = useDisclosure(false);
  const { page, setPage } = useQueryState([]);
  const lists = useOrgQuery(['lists', page], () =>
    pageOf(api.GET('/api/v1/user/contact-lists', { params: { query: { page, limit: 20 } } })),
  );
  const rows = lists.data?.data ?? [];
  return (
    <>
      <PageHeader
        title="Lists"
        description="Contacts subscribe to lists; campaigns are sent to a list's subscribers."
        actions={
          <Button leftSection={<IconPlus size={16} />} onClick={open}>
            New list
          </Button>
        }
      />
      <QueryState
        isLoading={lists.isLoading}
        error={lists.error}
        isEmpty={rows.length === 0}
        empty={<EmptyState title="No lists yet" />}
      >
        <Table highlightOnHover>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Name</Table.Th>
              <Table.Th>Subscribers</Table.Th>
              <Table.Th>Status</Table.Th>
              <Table.Th>Created</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((l) => (
              <Table.Tr key={l.id}>
                <Table.Td>
                  <Anchor component={Link} to={`/lists/${l.id}`} size="sm" fw={500}>
                    {l.name}
                  </Anchor>{' '}
                  {l.isDefault && (
                    <Badge size="xs" variant="outline">
                      default
                    </Badge>
                  )}
                </Table.Td>
                <Table.Td>{formatCount(l.subscriberCount)}</Table.Td>
                <Table.Td>
                  <Badge variant="light" color={l.status === 'active' ? 'green' : 'gray'}>
                    {l.status}
                  </Badge>
                </Table.Td>
                <Table.Td>{formatDateTime(l.createdAt)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
        <Paginator meta={lists.data?.meta} onChange={setPage} />
      </QueryState>
      <NewListModal opened={creating} onClose={close} />
    </>
  );
}
