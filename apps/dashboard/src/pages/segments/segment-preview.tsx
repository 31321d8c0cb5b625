// The live count of a rule set: asked of POST /contact-segments/preview a moment after the last edit.
import { Alert, Group, Loader, Paper, Text } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { api, dataOf } from '../../api/client';
import type { SegmentGroup } from '../../api/types';
import { useOrgQuery } from '../../hooks/use-org-query';
import { contactName, formatCount } from '../../lib/format';
import { errorMessage } from '../../api/errors';
import { isComplete } from './rule-fields';

export function SegmentPreviewPanel({ rules }: { rules: SegmentGroup }) {
  const [debounced] = useDebouncedValue(rules, 400);
  const ready = isComplete(debounced);
  const preview = useOrgQuery(
    ['segment-preview', JSON.stringify(debounced)],
    () =>
      dataOf(
        api.POST('/api/v1/user/contact-segments/preview', {
          body: { rules: debounced },
        }),
      ),
    { enabled: ready },
  );

  return (
    <Paper withBorder p="md" radius="md" aria-live="polite">
      <Text size="xs" c="dimmed" fw={700} tt="uppercase">
        Matching contacts now
      </Text>
      {!ready ? (
        <Text size="sm" c="dimmed" mt={4}>
          Complete every condition to see the count.
        </Text>
      ) : preview.error ? (
        <Alert color="red" mt="xs" role="alert">
          {errorMessage(preview.error)}
        </Alert>
      ) : (
        <>
          <Group gap="xs" mt={4}>
            <Text fw={700} size="xl" data-testid="segment-count">
              {preview.data ? formatCount(preview.data.count) : '…'}
            </Text>
            {preview.isFetching && <Loader size="xs" role="status" aria-label="Counting" />}
          </Group>
          {preview.data && preview.data.sample.length > 0 && (
            <Text size="sm" c="dimmed" mt={4}>
              For example: {preview.data.sample.slice(0, 5).map(contactName).join(', ')}
            </Text>
          )}
        </>
      )}
    </Paper>
  );
}
