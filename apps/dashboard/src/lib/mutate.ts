// Runs a change, tells the user how it went, and refreshes what it may have changed.
import { notifications } from '@mantine/notifications';
import type { QueryClient } from '@tanstack/react-query';
import { errorMessage } from '../api/errors';

export async function runChange<T>(
  queries: QueryClient,
  change: () => Promise<T>,
  success: string,
): Promise<T | undefined> {
  try {
    const result = await change();
    notifications.show({ color: 'green', message: success });
    await queries.invalidateQueries();
    return result;
  } catch (err) {
    notifications.show({ color: 'red', title: 'Not done', message: errorMessage(err) });
    return undefined;
  }
}
