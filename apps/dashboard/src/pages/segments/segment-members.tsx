// The contacts of a saved segment, one server page at a time.
import { Anchor, Paper, Table, Title } from '@mantine/core';
import { useState } from 'react';
import { Link } from 'react-router';
import { api, pageOf } from '../../api/client';
import { Paginator } from '../../components/paginator';
import { EmptyState, QueryState } from '../../components/query-state';
import { useOrgQuery } from '../../hooks/use-org-query';
import { contactName, formatDateTime } from '../../lib/format';

export function SegmentMembers({ segmentId }: { segmentId: string }) {
  const [page, setPage] = useState(1);
  const members = useOrgQuery(['segment-members', segmentId, page], () =>
    pageOf(
      api.GET('/api/v1/user/contact-segments/{id}/contacts', {
        params: { path: { id: segmentId }, query: { page, limit: 20 } },
      }),
    ),
  );
  const rows = members.data?.data ?? [];
  return (
    <Paper withBorder p="md" radius="md">
      <Title order={2} size="h4" mb="sm">
        Members{' '}
        <span data-testid="segment-member-total">
          {members.data ? `(${members.data.meta.total})` : ''}
        </span>
      </Title>
      <QueryState
        isLoading={members.isLoading}
        error={members.error}
        isEmpty={rows.length === 0}
        empty={<EmptyState title="No contact matches this segment now" />}
      >
        <Table>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Name</Table.Th>
              <Table.Th>Email</Table.Th>
              <Table.Th>Created</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((c) => (
              <Table.Tr key={c.id}>
                <Table.Td>
                  <Anchor component={Link} to={`/contacts/${c.id}`} size="sm">
                    {contactName(c)}
                  </Anchor>
                </Table.Td>
                <Table.Td>{c.emails?.[0]?.email ?? '—'}</Table.Td>
                <Table.Td>{formatDateTime(c.createdAt)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
        <Paginator meta={members.data?.meta} onChange={setPage} />
      </QueryState>
    </Paper>
  );
}
