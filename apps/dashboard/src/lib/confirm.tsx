// One confirmation dialog for every destructive action: says what goes, and cannot be missed.
import { Text } from '@mantine/core';
import { modals } from '@mantine/modals';
import type { ReactNode } from 'react';

export function confirmDestructive(opts: {
  title: string;
  body: ReactNode;
  confirmLabel: string;
  onConfirm: () => void | Promise<void>;
}): void {
  modals.openConfirmModal({
    title: opts.title,
    centered: true,
    children: typeof opts.body === 'string' ? <Text size="sm">{opts.body}</Text> : opts.body,
    labels: { confirm: opts.confirmLabel, cancel: 'Cancel' },
    // White on red.6 is 3.8:1 and on red.8 just 4.5:1; red.9 passes WCAG's 4.5:1 with room.
    confirmProps: { color: 'red.9' },
    onConfirm: () => void opts.onConfirm(),
  });
}
