import { Anchor, Badge, Button, Table } from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import { Link } from 'react-router';
import { api, pageOf } from '../../api/client';
import { PageHeader } from '../../components/page-header';
import { Paginator } from '../../components/paginator';
import { EmptyState, QueryState } from '../../components/query-state';
import { useOrgQuery } from '../../hooks/use-org-query';
import { formatCount, formatDateTime } from '../../lib/format';
import { useQueryState } from '../../lib/use-page';

export function SegmentsPage() {
  const { page, setPage } = useQueryState([]);
  const segments = useOrgQuery(['segments', page], () =>
    pageOf(
      api.GET('/api/v1/user/contact-segments', {
        params: { query: { page, limit: 20, withCounts: 'true' } },
      }),
    ),
  );
  const rows = segments.data?.data ?? [];
  return (
    <>
      <PageHeader
        title="Segments"
        description="Groups of contacts defined by rules (dynamic) or picked by hand (static)."
        actions={
          <Button component={Link} to="/segments/new" leftSection={<IconPlus size={16} />}>
            New segment
          </Button>
        }
      />
      <QueryState
        isLoading={segments.isLoading}
        error={segments.error}
        isEmpty={rows.length === 0}
        empty={
          <EmptyState title="No segments yet">
            Build one from rules with a live count of the contacts it matches.
          </EmptyState>
        }
      >
        <Table highlightOnHover>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Name</Table.Th>
              <Table.Th>Type</Table.Th>
              <Table.Th>Contacts</Table.Th>
              <Table.Th>Updated</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((s) => (
              <Table.Tr key={s.id}>
                <Table.Td>
                  <Anchor component={Link} to={`/segments/${s.id}`} size="sm" fw={500}>
                    {s.name}
                  </Anchor>
                </Table.Td>
                <Table.Td>
                  <Badge variant="light" color={s.type === 'dynamic' ? 'indigo' : 'gray'}>
                    {s.type}
                  </Badge>
                </Table.Td>
                <Table.Td>{formatCount(s.contactCount)}</Table.Td>
                <Table.Td>{formatDateTime(s.updatedAt)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
        <Paginator meta={segments.data?.meta} onChange={setPage} />
      </QueryState>
    </>
  );
}
