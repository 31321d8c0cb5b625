// Live previews of a campaign's content beside its fields: the SMS segments and encoding the
// provider bills, the WhatsApp template with its parameters, and the push notification.
import { Badge, Code, Group, Paper, Stack, Table, Text } from '@mantine/core';
import { countSmsSegments } from '../../../../../libs/domain/src/channels/sms-segments';
import { formatCount } from '../../lib/format';

export function SmsPreview({ text }: { text: string }) {
  const count = countSmsSegments(text);
  const unitName = count.encoding === 'GSM-7' ? 'characters' : 'UTF-16 units';
  return (
    <Paper withBorder p="sm" radius="md" bg="gray.0" data-testid="sms-preview">
      <Group justify="space-between" mb={6}>
        <Text size="xs" fw={700} tt="uppercase" c="dimmed">
          SMS preview
        </Text>
        <Group gap={6}>
          <Badge variant="light" color={count.encoding === 'GSM-7' ? 'teal' : 'orange'}>
            <span data-testid="sms-encoding">{count.encoding}</span>
          </Badge>
          <Badge variant="light" color={count.segments > 1 ? 'orange' : 'indigo'}>
            <span data-testid="sms-segments">
              {count.segments} {count.segments === 1 ? 'segment' : 'segments'}
            </span>
          </Badge>
        </Group>
      </Group>
      <Text size="sm" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
        {text || '—'}
      </Text>
      <Text size="xs" c="dimmed" mt={6} aria-live="polite">
        {formatCount(count.units)} {unitName}
        {count.encoding === 'UCS-2' &&
          '. A character outside the GSM-7 alphabet sends the whole text as UCS-2.'}
      </Text>
    </Paper>
  );
}

export function WhatsappTemplatePreview(props: {
  name: string;
  language: string;
  parameters: string[];
}) {
  if (!props.name) return null;
  return (
    <Paper withBorder p="sm" radius="md" bg="gray.0" data-testid="whatsapp-template-preview">
      <Text size="xs" fw={700} tt="uppercase" c="dimmed" mb={6}>
        Template preview
      </Text>
      <Text size="sm">
        <Code>{props.name}</Code> in <Code>{props.language || '—'}</Code>
      </Text>
      {props.parameters.length === 0 ? (
        <Text size="xs" c="dimmed" mt={4}>
          No body parameters: the template is sent as approved.
        </Text>
      ) : (
        <Table mt={4} withRowBorders={false} verticalSpacing={2}>
          <caption style={{ captionSide: 'top', textAlign: 'left' }}>
            <Text size="xs" c="dimmed" span>
              Body parameters, in order
            </Text>
          </caption>
          <Table.Tbody>
            {props.parameters.map((p, i) => (
              <Table.Tr key={i}>
                <Table.Th w={60} fw={500}>
                  <Code>{`{{${i + 1}}}`}</Code>
                </Table.Th>
                <Table.Td>
                  {p || (
                    <Text c="red.9" size="sm" span>
                      (empty)
                    </Text>
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

export function PushPreview({ title, body }: { title: string; body: string }) {
  return (
    <Paper withBorder p="sm" radius="lg" shadow="xs" data-testid="push-preview">
      <Text size="xs" fw={700} tt="uppercase" c="dimmed" mb={6}>
        Notification preview
      </Text>
      <Stack gap={2}>
        <Text size="sm" fw={700} lineClamp={1}>
          {title || 'No title'}
        </Text>
        <Text size="sm" lineClamp={4}>
          {body || 'No body'}
        </Text>
      </Stack>
    </Paper>
  );
}
