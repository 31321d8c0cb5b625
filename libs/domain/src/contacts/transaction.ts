// Write transactions of the contacts area. Locks are always taken in the order contacts → lists
// (by id) → memberships, so the area's own statements do not deadlock each other; the counters kept
// by triggers can still meet in another order, which PostgreSQL detects: such a transaction is
// retried whole a few times before the error surfaces.
import { DataSource, EntityManager, QueryFailedError } from 'typeorm';
import { ConflictError } from '../errors/domain-errors';

const RETRYABLE = new Set(['40P01', '40001']);

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

/** A unique violation on an email blind index is the 409 of §4 (duplicate email). */
export function asDuplicateEmail(err: unknown): unknown {
  if (
    err instanceof QueryFailedError &&
    (err as { code?: string }).code === '23505' &&
    /email_hash/.test(String((err as { constraint?: string }).constraint ?? err.message))
  ) {
    return new ConflictError('A contact with this email address already exists');
  }
  return err;
}
