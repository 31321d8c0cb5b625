// Every channel record of a contact in one table: its address and when it was added, its status
// and what that means for sending, and its last use where the API records one.
import { Badge, Group, Paper, Table, Text, Title } from '@mantine/core';
import type { Contact } from '../../api/types';
import { formatDate, formatDateTime } from '../../lib/format';
import { channelRows, statusColor } from './channel-records';

export function ContactChannels({ contact }: { contact: Contact }) {
  const rows = channelRows(contact);
  return (
    <Paper withBorder p="md" radius="md">
      <Title order={2} size="h4" mb="sm">
        Channels
      </Title>
      {rows.length === 0 ? (
        <Text c="dimmed" size="sm">
          No channel record: this contact cannot be reached yet.
        </Text>
      ) : (
        <Table data-testid="contact-channels" verticalSpacing="sm">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Record</Table.Th>
              <Table.Th>Status</Table.Th>
              <Table.Th>Last use</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((r) => (
              <Table.Tr key={r.id} data-record-id={r.id} style={{ verticalAlign: 'top' }}>
                <Table.Td>
                  <Group gap={6} wrap="nowrap">
                    <Text size="sm" fw={600}>
                      {r.channel}
                    </Text>
                    {r.isPrimary && (
                      <Badge size="xs" variant="light">
                        primary
                      </Badge>
                    )}
                  </Group>
                  <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
                    {r.value}
                  </Text>
                  <Text size="xs" c="dimmed">
                    added {formatDate(r.createdAt)}
                  </Text>
                </Table.Td>
                <Table.Td miw={150}>
                  <Badge variant="outline" color={statusColor(r.status)} style={{ flexShrink: 0 }}>
                    {r.status.replace(/_/g, ' ')}
                  </Badge>
                  {r.note && (
                    <Text size="xs" c="dimmed" mt={4}>
                      {r.note}
                    </Text>
                  )}
                </Table.Td>
                <Table.Td miw={110}>
                  {r.lastUse ? (
                    <>
                      <Text size="sm">{formatDateTime(r.lastUse.at)}</Text>
                      <Text size="xs" c="dimmed">
                        {r.lastUse.what}
                      </Text>
                    </>
                  ) : (
                    <Text size="sm">—</Text>
                  )}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Paper>
  );
}
