// Maps each column of the file to a contact field, prefilled from the API's suggestions.
import { Select, Table, Text } from '@mantine/core';
import type { FieldMapping } from '../../api/types';

const FIELDS = [
  { value: 'ignore', label: 'Do not import' },
  { value: 'firstName', label: 'First name' },
  { value: 'lastName', label: 'Last name' },
  { value: 'email', label: 'Email' },
  { value: 'phoneNumber', label: 'Phone (SMS)' },
  { value: 'whatsappNumber', label: 'WhatsApp number' },
  { value: 'telegramUsername', label: 'Telegram username' },
  { value: 'timezone', label: 'Time zone' },
  { value: 'language', label: 'Language' },
  { value: 'status', label: 'Status' },
  { value: 'notes', label: 'Notes' },
  { value: 'tags', label: 'Tags (; separated)' },
];

const CUSTOM = 'customFields.';

/** A custom-field key made of the header (letters, digits, _ and -). */
function customKey(header: string): string {
  return (
    header
      .trim()
      .replace(/[^A-Za-z0-9_-]+/g, '_')
      .slice(0, 64) || 'field'
  );
}

/** The fields, plus this column as a custom field (the suggested key when there is one). */
function options(header: string, current: string) {
  const key = current.startsWith(CUSTOM) ? current.slice(CUSTOM.length) : customKey(header);
  return [...FIELDS, { value: `${CUSTOM}${key}`, label: `Custom field "${key}"` }];
}

export function ColumnMapping(props: {
  headers: string[];
  rows: string[][];
  value: FieldMapping[];
  onChange: (next: FieldMapping[]) => void;
}) {
  const fieldOf = (h: string) =>
    props.value.find((m) => m.csvHeader === h)?.serviceField ?? 'ignore';
  const set = (h: string, serviceField: string) =>
    props.onChange(
      props.headers.map((x) => ({
        csvHeader: x,
        serviceField: x === h ? serviceField : fieldOf(x),
      })),
    );

  return (
    <Table.ScrollContainer minWidth={640}>
      <Table>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Column</Table.Th>
            <Table.Th>Sample values</Table.Th>
            <Table.Th>Import as</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {props.headers.map((h, col) => (
            <Table.Tr key={h}>
              <Table.Td fw={500}>{h}</Table.Td>
              <Table.Td>
                <Text size="sm" c="dimmed" lineClamp={1}>
                  {props.rows
                    .map((r) => r[col])
                    .filter(Boolean)
                    .slice(0, 3)
                    .join(', ') || '—'}
                </Text>
              </Table.Td>
              <Table.Td>
                <Select
                  aria-label={`Import column ${h} as`}
                  data={options(h, fieldOf(h))}
                  value={fieldOf(h)}
                  onChange={(v) => set(h, v ?? 'ignore')}
                  allowDeselect={false}
                  w={240}
                />
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
