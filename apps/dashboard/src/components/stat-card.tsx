import { Group, Paper, Text } from '@mantine/core';
import type { ReactNode } from 'react';

/** One figure with its label; `extra` holds a trend or a note. */
export function StatCard(props: {
  label: string;
  value: ReactNode;
  extra?: ReactNode;
  testId?: string;
}) {
  return (
    <Paper withBorder p="md" radius="md">
      <Text size="xs" c="dimmed" tt="uppercase" fw={700}>
        {props.label}
      </Text>
      <Group align="flex-end" gap="xs" mt={6}>
        <Text fw={700} size="xl" data-testid={props.testId}>
          {props.value}
        </Text>
        {props.extra}
      </Group>
    </Paper>
  );
}
