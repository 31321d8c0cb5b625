// Every channel record of a contact in one table: its status and what that means for sending,
// its last use where the API records one, and when it was added.
import { Badge, Paper, Stack, Table, Text, Title } from '@mantine/core';
import type { Contact } from '../../api/models';
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
        <Table data-testid="contact-channels">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Channel</Table.Th>
              <Table.Th>Address</Table.Th>
              <Table.Th>Status</Table.Th>
              <Table.Th>Last use</Table.Th>
              <Table.Th>Added</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((r) => (
              <Table.Tr key={r.id} data-record-id={r.id}>
                <Table.Td>{r.channel}</Table.Td>
                <Table.Td>
                  {r.value}{' '}
                  {r.isPrimary && (
                    <Badge size="xs" variant="light">
                      primary
                    </Badge>
                  )}
                </Table.Td>
                <Table.Td>
                  <Stack gap={2} align="flex-start">
                    <Badge variant="outline" color={statusColor(r.status)}>
                      {r.status.replace(/_/g, ' ')}
                    </Badge>
                    {r.note && (
                      <Text size="xs" c="dimmed">
                        {r.note}
                      </Text>
                    )}
                  </Stack>
                </Table.Td>
                <Table.Td>
                  {r.lastUse ? (
                    <>
                      <Text size="sm">{formatDateTime(r.lastUse.at)}</Text>
                      <Text size="xs" c="dimmed">
                        {r.lastUse.what}
                      </Text>
                    </>
                  ) : (
                    '—'
                  )}
                </Table.Td>
                <Table.Td>{formatDate(r.createdAt)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Paper>
  );
}
