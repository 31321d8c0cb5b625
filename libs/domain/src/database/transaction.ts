// Write transactions, retried whole after a deadlock or a serialization failure.
import { DataSource, EntityManager } from 'typeorm';

/** Deadlock detected, serialization failure: the transaction did nothing and may run again. */
const RETRYABLE = new Set(['40P01', '40001']);

/**
 * Runs `work` in one transaction; a deadlock or serialization failure rolls it back and runs it
 * again (up to `attempts` runs in all) before the error surfaces. `work` must therefore not have
 * effects outside the transaction that cannot be repeated.
 */
export async function inTransaction<T>(
  ds: DataSource,
  work: (em: EntityManager) => Promise<T>,
  attempts = 3,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await ds.transaction(work);
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (attempt < attempts && code && RETRYABLE.has(code)) continue;
      throw err;
    }
  }
}
