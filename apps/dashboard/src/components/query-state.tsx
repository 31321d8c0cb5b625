// Loading, error and empty states shared by every page, so each looks and reads the same.
import { Alert, Center, Loader, Stack, Text } from '@mantine/core';
import { IconAlertCircle, IconInbox } from '@tabler/icons-react';
import type { ReactNode } from 'react';
import { errorMessage } from '../api/errors';

export function ErrorAlert({
  error,
  title = 'Request failed',
}: {
  error: unknown;
  title?: string;
}) {
  if (!error) return null;
  return (
    <Alert color="red" title={title} icon={<IconAlertCircle size={18} />} role="alert">
      {errorMessage(error)}
    </Alert>
  );
}

export function Loading({ label = 'Loading' }: { label?: string }) {
  return (
    <Center py="xl">
      <Loader aria-label={label} />
    </Center>
  );
}

export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <Center py="xl">
      <Stack align="center" gap="xs">
        <IconInbox size={36} stroke={1.5} color="var(--mantine-color-gray-5)" aria-hidden />
        <Text fw={600}>{title}</Text>
        {children && (
          <Text c="dimmed" size="sm" ta="center" maw={420}>
            {children}
          </Text>
        )}
      </Stack>
    </Center>
  );
}

/** Renders the loader, the error, the empty state or the content of a query. */
export function QueryState(props: {
  isLoading: boolean;
  error: unknown;
  isEmpty?: boolean;
  empty?: ReactNode;
  children: ReactNode;
}) {
  if (props.isLoading) return <Loading />;
  if (props.error) return <ErrorAlert error={props.error} />;
  if (props.isEmpty) return <>{props.empty}</>;
  return <>{props.children}</>;
}
