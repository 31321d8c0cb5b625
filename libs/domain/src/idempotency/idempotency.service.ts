// Idempotency-Key on the send API (§13): the first 202 body is kept 24 hours per (organization,
// key); a repeat with the same body gets it back without a new message or a limit unit, a repeat
// with another body is refused, and so is one still in flight after a short wait for the first.
// Kept in PostgreSQL, so a Redis flush cannot turn a retry into a duplicate.
import { Injectable, Logger } from '@nestjs/common';
import { createHash, randomUUID } from 'node:crypto';
import { Clock } from '../common/clock';
import type { OrgId } from '../common/org-id';
import { ConflictError, ValidationFailedError } from '../errors/domain-errors';
import { IdempotencyRepository } from './idempotency.repository';

export const IDEMPOTENCY_TTL_MS = 24 * 3600_000;
/** A first request that has not answered by then is taken for dead: a repeat may take its key. */
const LOCK_MS = 60_000;
/** How long a repeat waits for the first request's answer before it is refused as in flight. */
const WAIT_MS = 5_000;
const POLL_MS = 25;
/** 1–255 printable ASCII characters. */
const KEY = /^[\x20-\x7e]{1,255}$/;

export type IdempotencyStart =
  { kind: 'replay'; response: unknown } | { kind: 'claimed'; claimId: string };

/** JSON with object keys sorted at every level: one text per body whatever its key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** SHA-256 of the body's canonical JSON: what "the same request body" compares. */
export function requestFingerprint(body: unknown): string {
  return createHash('sha256').update(canonical(body)).digest('hex');
}

@Injectable()
export class IdempotencyService {
  private readonly logger = new Logger(IdempotencyService.name);

  constructor(
    private readonly repository: IdempotencyRepository,
    private readonly clock: Clock,
  ) {}

  /** The header's value, validated (422 naming `Idempotency-Key`). */
  static parseKey(value: unknown): string {
    if (typeof value !== 'string' || !KEY.test(value)) {
      throw ValidationFailedError.field(
        'Idempotency-Key',
        'type',
        'Idempotency-Key must be 1 to 255 printable ASCII characters',
      );
    }
    return value;
  }

  /**
   * Claims `key` for this request, or answers the stored response of an earlier one with the
   * same body. Another body under the key, or a first request still running after WAIT_MS: 409.
   */
  async start(organizationId: OrgId, key: string, body: unknown): Promise<IdempotencyStart> {
    const requestHash = requestFingerprint(body);
    const until = this.clock.now().getTime() + WAIT_MS;
    for (;;) {
      const now = this.clock.now();
      const expiredBefore = new Date(now.getTime() - IDEMPOTENCY_TTL_MS);
      const claimId = randomUUID();
      const claimed = await this.repository.claim(organizationId, key, {
        requestHash,
        claimId,
        lockedUntil: new Date(now.getTime() + LOCK_MS),
        now,
        expiredBefore,
      });
      if (claimed) return { kind: 'claimed', claimId };
      const stored = await this.repository.find(organizationId, key, expiredBefore);
      // Released or expired between the two statements: claim again.
      if (!stored) continue;
      if (stored.requestHash !== requestHash) {
        throw new ConflictError('Idempotency-Key was already used with a different request body');
      }
      if (stored.responseBody !== null) return { kind: 'replay', response: stored.responseBody };
      if (this.clock.now().getTime() >= until) {
        throw new ConflictError('A request with this Idempotency-Key is still in progress');
      }
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }

  /**
   * Runs `work` once per (organization, key): without a key it just runs; with one, a repeat of
   * the same body answers the first response (`replayed`) without running it again.
   */
  async run<T>(
    organizationId: OrgId,
    key: string | undefined,
    body: unknown,
    work: () => Promise<T>,
  ): Promise<{ response: T; replayed: boolean }> {
    if (key === undefined) return { response: await work(), replayed: false };
    const parsed = IdempotencyService.parseKey(key);
    const start = await this.start(organizationId, parsed, body);
    if (start.kind === 'replay') return { response: start.response as T, replayed: true };
    let response: T;
    try {
      response = await work();
    } catch (err) {
      await this.release(organizationId, parsed, start.claimId).catch(() => undefined);
      throw err;
    }
    // The work is done (a message committed): its answer stands even if it cannot be kept.
    await this.complete(organizationId, parsed, start.claimId, response).catch((err: Error) =>
      this.logger.warn({ msg: 'idempotent response not stored', organizationId, err: err.message }),
    );
    return { response, replayed: false };
  }

  /** Keeps the response of the claimed request for its repeats. */
  complete(organizationId: OrgId, key: string, claimId: string, response: unknown) {
    return this.repository.complete(organizationId, key, claimId, response);
  }

  /** The claimed request failed: nothing is kept, a retry runs anew. */
  release(organizationId: OrgId, key: string, claimId: string) {
    return this.repository.release(organizationId, key, claimId);
  }
}
