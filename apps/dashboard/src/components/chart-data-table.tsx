// The numbers behind a chart as a table: screen readers read it, and anyone can open it.
import { Table, Text, UnstyledButton } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';

export function ChartDataTable(props: {
  caption: string;
  columns: string[];
  rows: (string | number)[][];
  testId?: string;
}) {
  const [shown, { toggle }] = useDisclosure(false);
  return (
    <>
      <UnstyledButton onClick={toggle} mt="xs" aria-expanded={shown}>
        <Text size="xs" c="indigo.8" td="underline">
          {shown ? 'Hide the data' : 'Show the data'}
        </Text>
      </UnstyledButton>
      <Table
        data-testid={props.testId}
        mt="xs"
        style={
          shown
            ? undefined
            : {
                position: 'absolute',
                width: 1,
                height: 1,
                overflow: 'hidden',
                clip: 'rect(0 0 0 0)',
              }
        }
      >
        <caption style={{ captionSide: 'top', textAlign: 'left' }}>{props.caption}</caption>
        <Table.Thead>
          <Table.Tr>
            {props.columns.map((c) => (
              <Table.Th key={c}>{c}</Table.Th>
            ))}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {props.rows.map((r, i) => (
            <Table.Tr key={i}>
              {r.map((v, j) => (
                <Table.Td key={j}>{v}</Table.Td>
              ))}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </>
  );
}
