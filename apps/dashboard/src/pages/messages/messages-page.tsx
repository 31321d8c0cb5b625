// Sent messages of every channel, newest first, filtered by channel, recipient, status and time
// with the API's parameters.
import { Anchor, Group, Select, Table, Text, TextInput } from '@mantine/core';
import { useDebouncedCallback } from '@mantine/hooks';
import { IconSearch } from '@tabler/icons-react';
import { useState } from 'react';
import { Link } from 'react-router';
import { api, pageOf } from '../../api/client';
import { messageStatusValues } from '../../api/schema-values';
import type { MessageStatus } from '../../api/types';
import { optionsOf } from '../../lib/options';
import { PageHeader } from '../../components/page-header';
import { Paginator } from '../../components/paginator';
import { EmptyState, QueryState } from '../../components/query-state';
import { useOrgQuery } from '../../hooks/use-org-query';
import { formatDateTime } from '../../lib/format';
import { compact, useQueryState } from '../../lib/use-page';
import {
  channelLabel,
  MESSAGE_CHANNEL_LABEL,
  type MessageChannel,
  MessageStatusBadge,
} from './message-status';

const KEYS = ['channel', 'recipient', 'status', 'from', 'to', 'campaignId'] as const;
/** The Channel filter's "All": no `channel` parameter. */
const ALL = 'all';

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
    // The API matches one exact address (an email, a phone number, a device token): wait until it
    // looks like one.
    const t = v.trim();
    if (t === '' || /^\S+@\S+\.\S+$/.test(t) || /^\+?[\d\s().-]{7,}$/.test(t) || t.length >= 32) {
      setFilters({ recipient: t });
    }
  }, 400);
  const messages = useOrgQuery(['messages', values, page], () =>
    pageOf(
      api.GET('/api/v1/user/messages', {
        params: {
          query: compact({
            page,
            limit: 20,
            channel: values.channel as MessageChannel,
            recipient: values.recipient,
            status: values.status as MessageStatus,
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
        description="Every message sent through the API, the SMTP relay or a campaign, on every channel."
      />
      <Group mb="md" align="flex-end" gap="sm">
        <Select
          label="Channel"
          data={[{ value: ALL, label: 'All' }, ...optionsOf(MESSAGE_CHANNEL_LABEL)]}
          value={values.channel || ALL}
          onChange={(v) => setFilters({ channel: !v || v === ALL ? '' : v })}
          allowDeselect={false}
          w={150}
        />
        <TextInput
          label="Recipient"
          placeholder="someone@example.com or +14155550100"
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
          data={messageStatusValues.map((s) => ({ value: s, label: s.replace(/_/g, ' ') }))}
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
          <EmptyState title="No messages">
            {values.channel
              ? `No ${channelLabel(values.channel)} message matches.`
              : 'Messages appear here once a message is sent.'}
          </EmptyState>
        }
      >
        <Table highlightOnHover data-testid="messages">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Sent</Table.Th>
              <Table.Th>Channel</Table.Th>
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
                <Table.Td>{channelLabel(m.channel)}</Table.Td>
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
