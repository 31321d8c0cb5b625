// Sent messages, newest first, filtered by recipient, status and time with the API's parameters.
import { Anchor, Group, Select, Table, Text, TextInput } from '@mantine/core';
import { useDebouncedCallback } from '@mantine/hooks';
import { IconSearch } from '@tabler/icons-react';
import { useState } from 'react';
import { Link } from 'react-router';
import { api, pageOf } from '../../api/client';
import type { MessageSummary } from '../../api/models';
import { PageHeader } from '../../components/page-header';
import { Paginator } from '../../components/paginator';
import { EmptyState, QueryState } from '../../components/query-state';
import { useOrgQuery } from '../../hooks/use-org-query';
import { formatDateTime } from '../../lib/format';
import { compact, useQueryState } from '../../lib/use-page';
import { MESSAGE_STATUSES, MessageStatusBadge } from './message-status';

const KEYS = ['recipient', 'status', 'from', 'to', 'campaignId'] as const;
type Status = (typeof MESSAGE_STATUSES)[number];

/** A local calendar day from a date input, as the instant it starts (from) or ends (to). */
function dayBound(day: string, end: boolean): string | undefined {
  if (!day) return undefined;
  const start = new Date(`${day}T00:00:00`);
  if (!end) return start.toISOString();
  const next = new Date(start);
  next.setDate(next.getDate() + 1);
  return new Date(next.getTime() - 1).toISOString();
}

export function MessagesPage() {
  const { values, page, setFilters, setPage } = useQueryState(KEYS);
  const [recipient, setRecipient] = useState(values.recipient);
  const applyRecipient = useDebouncedCallback((v: string) => {
    // The API matches one exact address: wait until it looks like one.
    if (v === '' || /^\S+@\S+\.\S+$/.test(v)) setFilters({ recipient: v.trim() });
  }, 400);
  const messages = useOrgQuery(['messages', values, page], () =>
    pageOf<MessageSummary>(
      api.GET('/api/v1/user/messages', {
        params: {
          query: compact({
            page,
            limit: 20,
            recipient: values.recipient,
            status: values.status as Status,
            campaignId: values.campaignId,
            from: dayBound(values.from, false),
            to: dayBound(values.to, true),
          }),
        },
      }),
    ),
  );
  const rows = messages.data?.data ?? [];

  return (
    <>
      <PageHeader
        title="Messages"
        description="Every email sent through the API, the SMTP relay or a campaign."
      />
      <Group mb="md" align="flex-end" gap="sm">
        <TextInput
          label="Recipient"
          placeholder="someone@example.com"
          leftSection={<IconSearch size={16} />}
          value={recipient}
          onChange={(e) => {
            setRecipient(e.currentTarget.value);
            applyRecipient(e.currentTarget.value);
          }}
          w={300}
        />
        <Select
          label="Status"
          placeholder="Any"
          data={MESSAGE_STATUSES.map((s) => ({ value: s, label: s.replace(/_/g, ' ') }))}
          value={values.status || null}
          onChange={(v) => setFilters({ status: v ?? '' })}
          clearable
          w={190}
        />
        <TextInput
          label="From"
          type="date"
          value={values.from}
          onChange={(e) => setFilters({ from: e.currentTarget.value })}
          w={170}
        />
        <TextInput
          label="To"
          type="date"
          value={values.to}
          onChange={(e) => setFilters({ to: e.currentTarget.value })}
          w={170}
        />
      </Group>
      <QueryState
        isLoading={messages.isLoading}
        error={messages.error}
        isEmpty={rows.length === 0}
        empty={
          <EmptyState title="No messages">Messages appear here once email is sent.</EmptyState>
        }
      >
        <Table highlightOnHover>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Sent</Table.Th>
              <Table.Th>Recipients</Table.Th>
              <Table.Th>From</Table.Th>
              <Table.Th>Status</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((m) => (
              <Table.Tr key={m.jobId}>
                <Table.Td>
                  <Anchor component={Link} to={`/messages/${m.jobId}`} size="sm">
                    {formatDateTime(m.createdAt)}
                  </Anchor>
                </Table.Td>
                <Table.Td>
                  <Text size="sm" lineClamp={1}>
                    {m.recipients.join(', ')}
                  </Text>
                </Table.Td>
                <Table.Td>{m.senderAddress}</Table.Td>
                <Table.Td>
                  <MessageStatusBadge status={m.status} />
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
        <Paginator meta={messages.data?.meta} onChange={setPage} />
      </QueryState>
    </>
  );
}
