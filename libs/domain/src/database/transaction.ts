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
  return inTransactionRetried(() => ds.transaction(work), attempts);
}

async function inTransactionRetried<T>(run: () => Promise<T>, attempts: number): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (attempt < attempts && code && RETRYABLE.has(code)) continue;
      throw err;
    }
  }
}

/**
 * As `inTransaction`, for work that may end without an error and without its writes: it answers
 * whether to commit, and `false` rolls the transaction back. Answers whether it committed.
 */
export async function inTransactionIf(
  ds: DataSource,
  work: (em: EntityManager) => Promise<boolean>,
  attempts = 3,
): Promise<boolean> {
  return inTransactionRetried(() => commitIf(ds, work), attempts);
}

async function commitIf(
  ds: DataSource,
  work: (em: EntityManager) => Promise<boolean>,
): Promise<boolean> {
  const runner = ds.createQueryRunner();
  try {
    await runner.startTransaction();
    const commit = await work(runner.manager);
    if (commit) await runner.commitTransaction();
    else await runner.rollbackTransaction();
    return commit;
  } catch (err) {
    // The work's error is the one that surfaces, whatever the rollback meets.
    await runner.rollbackTransaction().catch(() => undefined);
    throw err;
  } finally {
    await runner.release();
  }
}
