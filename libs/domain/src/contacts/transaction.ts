// Write-transaction rules of the contacts area. Locks are always taken in the order contacts →
// lists (by id) → memberships, so the area's own statements do not deadlock each other; the
// counters kept by triggers can still meet in another order, which PostgreSQL detects:
// `inTransaction` (database/transaction.ts) retries such a transaction whole.
import { QueryFailedError } from 'typeorm';
import { ConflictError } from '../errors/domain-errors';

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
