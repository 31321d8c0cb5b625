import { Group, Pagination, Text } from '@mantine/core';
import type { PageMeta } from '../api/client';
import { formatCount } from '../lib/format';

/** Server-side pages: only the current page is ever loaded. */
export function Paginator({
  meta,
  onChange,
}: {
  meta?: PageMeta;
  onChange: (page: number) => void;
}) {
  if (!meta || meta.total === 0) return null;
  const first = (meta.currentPage - 1) * meta.perPage + 1;
  const last = Math.min(meta.total, meta.currentPage * meta.perPage);
  return (
    <Group justify="space-between" mt="md">
      <Text size="sm" c="dimmed">
        {formatCount(first)}–{formatCount(last)} of {formatCount(meta.total)}
      </Text>
      {meta.lastPage > 1 && (
        <Pagination
          total={meta.lastPage}
          value={meta.currentPage}
          onChange={onChange}
          getControlProps={(control) => ({ 'aria-label': `${control} page` })}
          getItemProps={(page) => ({ 'aria-label': `Page ${page}` })}
          size="sm"
        />
      )}
    </Group>
  );
}
