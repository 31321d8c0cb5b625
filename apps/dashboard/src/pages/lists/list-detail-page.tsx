// One list: its subscribers and unsubscribed members, one server page at a time; delete.
import { Anchor, Badge, Button, Group, Paper, SegmentedControl, Table, Text } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useParams } from 'react-router';
import { api, dataOf, pageOf, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { PageHeader } from '../../components/page-header';
import { Paginator } from '../../components/paginator';
import { EmptyState, QueryState } from '../../components/query-state';
import { useOrgQuery } from '../../hooks/use-org-query';
import { confirmDestructive } from '../../lib/confirm';
import { contactName, formatCount, formatDateTime } from '../../lib/format';
import { runChange } from '../../lib/mutate';
import { optionsOf } from '../../lib/options';
import { useQueryState } from '../../lib/use-page';

type MembershipStatus = components['schemas']['ContactListMembershipResponse']['status'];

/** Each membership status, in the order the status filter offers them. */
const MEMBERSHIP_STATUS_LABELS: Record<MembershipStatus, string> = {
  subscribed: 'Subscribed',
  unsubscribed: 'Unsubscribed',
};

export function ListDetailPage() {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const queries = useQueryClient();
  const { values, page, setPage, setFilters } = useQueryState(['status'] as const);
  const status = (values.status || 'subscribed') as MembershipStatus;
  const list = useOrgQuery(['list', id], () =>
    dataOf(api.GET('/api/v1/user/contact-lists/{id}', { params: { path: { id } } })),
  );
  const members = useOrgQuery(['list-members', id, status, page], () =>
    pageOf(
      api.GET('/api/v1/user/contact-lists/{id}/members', {
        params: { path: { id }, query: { page, limit: 20, status } },
      }),
    ),
  );
  const rows = members.data?.data ?? [];
  const l = list.data;

  const remove = () =>
    confirmDestructive({
      title: 'Delete list',
      body: 'The list and its memberships are deleted; the contacts stay. This cannot be undone.',
      confirmLabel: 'Delete list',
      onConfirm: async () => {
        const done = await runChange(
          queries,
          () => unwrap(api.DELETE('/api/v1/user/contact-lists/{id}', { params: { path: { id } } })),
          'List deleted',
        );
        if (done) navigate('/lists');
      },
    });

  return (
    <QueryState isLoading={list.isLoading} error={list.error}>
      {l && (
        <>
          <PageHeader
            title={l.name}
            description={l.description ?? undefined}
            actions={
              !l.isDefault && (
                <Button color="red" variant="light" onClick={remove}>
                  Delete
                </Button>
              )
            }
          />
          <Paper withBorder p="md" radius="md">
            <Group justify="space-between" mb="sm">
              <Text fw={600}>{formatCount(l.subscriberCount)} subscribers</Text>
              <SegmentedControl
                aria-label="Membership status"
                value={status}
                onChange={(v) => setFilters({ status: v === 'subscribed' ? '' : v })}
                data={optionsOf(MEMBERSHIP_STATUS_LABELS)}
              />
            </Group>
            <QueryState
              isLoading={members.isLoading}
              error={members.error}
              isEmpty={rows.length === 0}
              empty={<EmptyState title={`No ${status} members`} />}
            >
              <Table>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Contact</Table.Th>
                    <Table.Th>Email</Table.Th>
                    <Table.Th>Status</Table.Th>
                    <Table.Th>Since</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {rows.map((m) => (
                    <Table.Tr key={m.id}>
                      <Table.Td>
                        <Anchor component={Link} to={`/contacts/${m.contactId}`} size="sm">
                          {m.contact ? contactName(m.contact) : m.contactId}
                        </Anchor>
                      </Table.Td>
                      <Table.Td>{m.contact?.emails?.[0]?.email ?? '—'}</Table.Td>
                      <Table.Td>
                        <Badge variant="light" color={m.status === 'subscribed' ? 'green' : 'gray'}>
                          {m.status}
                        </Badge>
                      </Table.Td>
                      <Table.Td>
                        {formatDateTime(
                          m.status === 'subscribed' ? m.subscribedAt : m.unsubscribedAt,
                        )}
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
              <Paginator meta={members.data?.meta} onChange={setPage} />
            </QueryState>
          </Paper>
        </>
      )}
    </QueryState>
  );
}
