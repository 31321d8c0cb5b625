// Every channel record of a contact, one table per channel that has records.
import { Badge, Paper, Table, Text, Title } from '@mantine/core';
import type { ChannelRecord, Contact } from '../../api/models';
import { formatDate } from '../../lib/format';

interface Row {
  channel: string;
  id: string;
  value: string;
  status: string;
  isPrimary: boolean;
  createdAt: string;
}

function value(r: ChannelRecord): string {
  return r.phoneNumber ?? r.username ?? r.appleId ?? r.deviceToken ?? '—';
}

export function channelRows(c: Contact): Row[] {
  const other = (channel: string, list?: ChannelRecord[]) =>
    (list ?? []).map((r) => ({
      channel,
      id: r.id,
      value: value(r),
      status: r.status,
      isPrimary: r.isPrimary,
      createdAt: r.createdAt,
    }));
  return [
    ...(c.emails ?? []).map((e) => ({
      channel: 'Email',
      id: e.id,
      value: e.email,
      status: e.status,
      isPrimary: e.isPrimary,
      createdAt: e.createdAt,
    })),
    ...other('SMS', c.smsNumbers),
    ...other('WhatsApp', c.whatsappAccounts),
    ...other('Telegram', c.telegramAccounts),
    ...other('iMessage', c.imessageAccounts),
    ...(c.pushNotifications ?? []).map((p) => ({
      channel: `Push (${p.platform ?? 'device'})`,
      id: p.id,
      value: `${(p.deviceToken ?? '').slice(0, 16)}…`,
      status: p.status,
      isPrimary: p.isPrimary,
      createdAt: p.createdAt,
    })),
  ];
}

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
        <Table>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Channel</Table.Th>
              <Table.Th>Address</Table.Th>
              <Table.Th>Status</Table.Th>
              <Table.Th>Added</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((r) => (
              <Table.Tr key={r.id}>
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
                  <Badge
                    variant="outline"
                    color={r.status === 'bounced' || r.status === 'complained' ? 'red' : 'gray'}
                  >
                    {r.status}
                  </Badge>
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
