// An endpoint's deliveries, newest first, one cursor page at a time (§10), with attempts and resend.
import {
  Accordion,
  Badge,
  Button,
  Group,
  Paper,
  SegmentedControl,
  Table,
  Text,
  Title,
} from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { EmptyState, QueryState } from '../../components/query-state';
import { useOrgQuery } from '../../hooks/use-org-query';
import { formatDateTime } from '../../lib/format';
import { runChange } from '../../lib/mutate';

type Status = components['schemas']['WebhookDeliveryResponse']['status'];

/** Each delivery status: its label in the filter and the colour of its badge. */
const STATUS: Record<Status, { label: string; color: string }> = {
  pending: { label: 'Pending', color: 'blue' },
  delivered: { label: 'Delivered', color: 'green' },
  failed: { label: 'Failed', color: 'red' },
};

export function Deliveries({ endpointId }: { endpointId: string }) {
  const queries = useQueryClient();
  const [status, setStatus] = useState<'all' | Status>('all');
  // Cursors of the pages before the current one, so Previous goes back without refetching all.
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const cursor = cursors[cursors.length - 1];
  const deliveries = useOrgQuery(
    ['webhook-deliveries', endpointId, status, cursor],
    () =>
      unwrap(
        api.GET('/api/v1/user/webhook-deliveries', {
          params: {
            query: {
              webhookEndpointId: endpointId,
              includeAttempts: true,
              limit: 20,
              ...(status === 'all' ? {} : { status: [status] }),
              ...(cursor ? { cursor } : {}),
            },
          },
        }),
      ),
    { refetchInterval: (d) => (d?.data.some((x) => x.status === 'pending') ? 3000 : false) },
  );
  const rows = deliveries.data?.data ?? [];

  const resend = (id: string) =>
    runChange(
      queries,
      () =>
        unwrap(
          api.POST('/api/v1/user/webhook-deliveries/{id}/retry', { params: { path: { id } } }),
        ),
      'Delivery sent again',
    );

  return (
    <Paper withBorder p="md" radius="md">
      <Group justify="space-between" mb="sm">
        <Title order={2} size="h4">
          Deliveries
        </Title>
        <SegmentedControl
          aria-label="Delivery status"
          value={status}
          onChange={(v) => {
            setStatus(v as 'all' | Status);
            setCursors([undefined]);
          }}
          data={[
            { value: 'all', label: 'All' },
            ...Object.entries(STATUS).map(([value, s]) => ({ value, label: s.label })),
          ]}
        />
      </Group>
      <QueryState
        isLoading={deliveries.isLoading}
        error={deliveries.error}
        isEmpty={rows.length === 0}
        empty={<EmptyState title="No deliveries" />}
      >
        <Accordion variant="separated" chevronPosition="left">
          {rows.map((d) => (
            <Accordion.Item key={d.id} value={d.id} data-testid="delivery">
              <Accordion.Control
                aria-label={`Delivery ${d.type} of ${formatDateTime(d.createdAt)}, ${d.status}`}
              >
                <Group justify="space-between" wrap="nowrap">
                  <Group gap="sm">
                    <Badge variant="light" color={STATUS[d.status]?.color ?? 'gray'}>
                      {d.status}
                    </Badge>
                    <Text size="sm" fw={500}>
                      {d.type}
                    </Text>
                  </Group>
                  <Text size="xs" c="dimmed">
                    {formatDateTime(d.createdAt)} · {d.attemptCount} attempt
                    {d.attemptCount === 1 ? '' : 's'}
                  </Text>
                </Group>
              </Accordion.Control>
              <Accordion.Panel>
                {d.errorMessage && (
                  <Text size="sm" c="red.8" mb="xs">
                    {d.errorMessage}
                  </Text>
                )}
                {d.nextRetryAt && (
                  <Text size="sm">Next attempt {formatDateTime(d.nextRetryAt)}</Text>
                )}
                <Table mb="sm">
                  <Table.Thead>
                    <Table.Tr>
                      <Table.Th>Attempt</Table.Th>
                      <Table.Th>When</Table.Th>
                      <Table.Th>HTTP status</Table.Th>
                      <Table.Th>Duration</Table.Th>
                      <Table.Th>Error</Table.Th>
                    </Table.Tr>
                  </Table.Thead>
                  <Table.Tbody>
                    {(d.attempts ?? []).map((a) => (
                      <Table.Tr key={a.id}>
                        <Table.Td>{a.attemptNumber}</Table.Td>
                        <Table.Td>{formatDateTime(a.startedAt)}</Table.Td>
                        <Table.Td>{a.httpStatusCode ?? 'no response'}</Table.Td>
                        <Table.Td>{a.durationMs === null ? '—' : `${a.durationMs} ms`}</Table.Td>
                        <Table.Td>{a.errorMessage ?? '—'}</Table.Td>
                      </Table.Tr>
                    ))}
                  </Table.Tbody>
                </Table>
                {d.status !== 'delivered' && (
                  <Button size="xs" variant="light" onClick={() => void resend(d.id)}>
                    Resend
                  </Button>
                )}
              </Accordion.Panel>
            </Accordion.Item>
          ))}
        </Accordion>
        <Group justify="flex-end" mt="sm">
          <Button
            variant="default"
            size="xs"
            disabled={cursors.length < 2}
            onClick={() => setCursors((c) => c.slice(0, -1))}
          >
            Previous
          </Button>
          <Button
            variant="default"
            size="xs"
            disabled={!deliveries.data?.meta.hasMore}
            onClick={() =>
              deliveries.data?.meta.nextCursor &&
              setCursors((c) => [...c, deliveries.data!.meta.nextCursor!])
            }
          >
            Next
          </Button>
        </Group>
      </QueryState>
    </Paper>
  );
}
