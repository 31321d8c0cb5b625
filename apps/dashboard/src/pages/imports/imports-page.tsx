import { Anchor, Button, Progress, Table } from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import { Link } from 'react-router';
import { api, pageOf } from '../../api/client';
import { PageHeader } from '../../components/page-header';
import { Paginator } from '../../components/paginator';
import { EmptyState, QueryState } from '../../components/query-state';
import { useOrgQuery } from '../../hooks/use-org-query';
import { formatCount, formatDateTime } from '../../lib/format';
import { useQueryState } from '../../lib/use-page';
import { ImportStatusBadge, percentDone, RUNNING } from './import-status';

export function ImportsPage() {
  const { page, setPage } = useQueryState([]);
  const imports = useOrgQuery(
    ['imports', page],
    () =>
      pageOf(api.GET('/api/v1/user/contact-imports', { params: { query: { page, limit: 20 } } })),
    { refetchInterval: (d) => (d?.data.some((i) => RUNNING.includes(i.status)) ? 2000 : false) },
  );
  const rows = imports.data?.data ?? [];
  return (
    <>
      <PageHeader
        title="Imports"
        description="CSV imports of contacts, newest first."
        actions={
          <Button component={Link} to="/imports/new" leftSection={<IconPlus size={16} />}>
            New import
          </Button>
        }
      />
      <QueryState
        isLoading={imports.isLoading}
        error={imports.error}
        isEmpty={rows.length === 0}
        empty={
          <EmptyState title="No imports yet">Upload a CSV file to add contacts in bulk.</EmptyState>
        }
      >
        <Table highlightOnHover>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>File</Table.Th>
              <Table.Th>Status</Table.Th>
              <Table.Th w={180}>Progress</Table.Th>
              <Table.Th>New</Table.Th>
              <Table.Th>Duplicates</Table.Th>
              <Table.Th>Errors</Table.Th>
              <Table.Th>Created</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((i) => (
              <Table.Tr key={i.id}>
                <Table.Td>
                  <Anchor component={Link} to={`/imports/${i.id}`} size="sm" fw={500}>
                    {i.fileName}
                  </Anchor>
                </Table.Td>
                <Table.Td>
                  <ImportStatusBadge status={i.status} />
                </Table.Td>
                <Table.Td>
                  <Progress value={percentDone(i)} aria-label={`Progress of ${i.fileName}`} />
                </Table.Td>
                <Table.Td>{formatCount(i.newCount)}</Table.Td>
                <Table.Td>{formatCount(i.duplicateCount)}</Table.Td>
                <Table.Td>{formatCount(i.errorCount)}</Table.Td>
                <Table.Td>{formatDateTime(i.createdAt)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
        <Paginator meta={imports.data?.meta} onChange={setPage} />
      </QueryState>
    </>
  );
}
