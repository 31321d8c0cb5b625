// One import: a progress bar and counters that move while the worker runs (polled every second),
// the errors file, cancel.
import { Alert, Button, Group, Paper, Stack, Text } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { IconDownload } from '@tabler/icons-react';
import { useParams } from 'react-router';
import { api, dataOf, unwrap } from '../../api/client';
import { PageHeader } from '../../components/page-header';
import { QueryState } from '../../components/query-state';
import { useOrgQuery } from '../../hooks/use-org-query';
import { formatDateTime } from '../../lib/format';
import { runChange } from '../../lib/mutate';
import { downloadImportErrors } from './download';
import { ImportCounters, ImportProgress, ImportStatusBadge, RUNNING } from './import-status';

export function ImportDetailPage() {
  const { id = '' } = useParams();
  const queries = useQueryClient();
  const imp = useOrgQuery(
    ['import', id],
    () => dataOf(api.GET('/api/v1/user/contact-imports/{id}', { params: { path: { id } } })),
    { refetchInterval: (d) => (!d || RUNNING.includes(d.import.status) ? 1000 : false) },
  );
  const i = imp.data?.import;

  const cancel = () =>
    runChange(
      queries,
      () =>
        unwrap(api.POST('/api/v1/user/contact-imports/{id}/cancel', { params: { path: { id } } })),
      'Import cancelled',
    );
  const download = () =>
    runChange(
      queries,
      () => downloadImportErrors(id, `import-errors-${id}.csv`),
      'Errors file downloaded',
    );

  return (
    <QueryState isLoading={imp.isLoading} error={imp.error}>
      {i && (
        <>
          <PageHeader
            title={i.fileName}
            description={`Started ${formatDateTime(i.createdAt)}`}
            actions={
              RUNNING.includes(i.status) && (
                <Button variant="default" onClick={() => void cancel()}>
                  Cancel import
                </Button>
              )
            }
          />
          <Stack>
            <Paper withBorder p="md" radius="md">
              <Group mb="sm" justify="space-between">
                <ImportStatusBadge status={i.status} />
                {i.completedAt && <Text size="sm">Finished {formatDateTime(i.completedAt)}</Text>}
              </Group>
              <ImportProgress imp={i} />
            </Paper>
            <ImportCounters imp={i} />
            {i.errorReason && (
              <Alert color="red" title="The import failed">
                {i.errorReason}
              </Alert>
            )}
            {i.errorCount > 0 && i.errorsFilePath && (
              <Group>
                <Button
                  variant="light"
                  leftSection={<IconDownload size={16} />}
                  onClick={() => void download()}
                >
                  Download the errors file
                </Button>
                <Text size="sm" c="dimmed">
                  The rejected rows with their row number and the reason.
                </Text>
              </Group>
            )}
          </Stack>
        </>
      )}
    </QueryState>
  );
}
