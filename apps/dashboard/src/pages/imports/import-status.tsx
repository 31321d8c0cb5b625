// How an import's status and counters read (§7): one badge, one bar, the counters.
import { Badge, Group, Progress, SimpleGrid, Text } from '@mantine/core';
import type { ContactImport } from '../../api/types';
import { StatCard } from '../../components/stat-card';
import { formatCount } from '../../lib/format';

type ImportStatus = ContactImport['status'];

/** The statuses of an import the worker is still on. */
export const RUNNING: ImportStatus[] = ['queued', 'processing'];

const COLOR: Record<ImportStatus, string> = {
  uploaded: 'gray',
  queued: 'blue',
  processing: 'indigo',
  completed: 'green',
  completed_with_errors: 'yellow',
  failed: 'red',
  cancelled: 'gray',
};

export function ImportStatusBadge({ status }: { status: ImportStatus }) {
  return (
    <Badge variant="light" color={COLOR[status] ?? 'gray'} data-testid="import-status">
      {status.replace(/_/g, ' ')}
    </Badge>
  );
}

export function percentDone(i: ContactImport): number {
  if (i.status === 'completed' || i.status === 'completed_with_errors') return 100;
  return i.totalRows > 0 ? Math.min(100, Math.floor((i.processedRows / i.totalRows) * 100)) : 0;
}

export function ImportProgress({ imp }: { imp: ContactImport }) {
  const pct = percentDone(imp);
  return (
    <div>
      <Group justify="space-between" mb={4}>
        <Text size="sm">
          {formatCount(imp.processedRows)} of {formatCount(imp.totalRows)} rows
        </Text>
        <Text size="sm" fw={600} data-testid="import-percent">
          {pct} %
        </Text>
      </Group>
      <Progress
        value={pct}
        size="lg"
        animated={RUNNING.includes(imp.status)}
        color={imp.status === 'failed' ? 'red' : imp.errorCount > 0 ? 'yellow' : 'indigo'}
        aria-label="Import progress"
      />
    </div>
  );
}

export function ImportCounters({ imp }: { imp: ContactImport }) {
  return (
    <SimpleGrid cols={{ base: 2, md: 4 }}>
      <StatCard
        label="Processed"
        value={formatCount(imp.processedRows)}
        testId="import-processed"
      />
      <StatCard label="New contacts" value={formatCount(imp.newCount)} testId="import-new" />
      <StatCard
        label="Duplicates"
        value={formatCount(imp.duplicateCount)}
        testId="import-duplicates"
      />
      <StatCard label="Errors" value={formatCount(imp.errorCount)} testId="import-errors" />
    </SimpleGrid>
  );
}
