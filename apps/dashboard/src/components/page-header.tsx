import { Group, Stack, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';

export function PageHeader(props: { title: string; description?: string; actions?: ReactNode }) {
  return (
    <Group justify="space-between" align="flex-start" mb="lg" wrap="nowrap">
      <Stack gap={4}>
        <Title order={1} size="h2">
          {props.title}
        </Title>
        {props.description && (
          <Text c="dimmed" size="sm">
            {props.description}
          </Text>
        )}
      </Stack>
      {props.actions && <Group gap="sm">{props.actions}</Group>}
    </Group>
  );
}
