// All SQL on one organization's Idempotency-Key records (§13): one row per (organization, key),
// claimed by the first request, completed with its response, released when it failed (the purge
// after 24 hours is IdempotencySweeper's).
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { OrgId } from '../common/org-id';
import { query, sql } from '../database/sql';

export interface StoredKey {
  requestHash: string;
  /** Null while the first request is in flight. */
  responseBody: unknown;
}

@Injectable()
export class IdempotencyRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /**
   * Claims the key for a request: true when the row is new, or replaces one that has expired
   * (created before `expiredBefore`) or was abandoned in flight (its lock ran out).
   */
  async claim(
    organizationId: OrgId,
    key: string,
    c: { requestHash: string; claimId: string; lockedUntil: Date; now: Date; expiredBefore: Date },
  ): Promise<boolean> {
    const rows = await query<{ claimed: boolean }>(
      this.ds,
      sql`INSERT INTO idempotency_keys AS k
            (organization_id, key, request_hash, claim_id, locked_until, created_at)
          VALUES (${organizationId}, ${key}, ${c.requestHash}, ${c.claimId}, ${c.lockedUntil}, ${c.now})
          ON CONFLICT (organization_id, key) DO UPDATE
             SET request_hash = EXCLUDED.request_hash, claim_id = EXCLUDED.claim_id,
                 response_body = NULL, locked_until = EXCLUDED.locked_until,
                 created_at = EXCLUDED.created_at
           WHERE k.created_at < ${c.expiredBefore}
              OR (k.response_body IS NULL AND k.locked_until < ${c.now})
          RETURNING true AS claimed`,
    );
    return rows.length > 0;
  }

  /** The key as stored, unless it has expired. */
  async find(organizationId: OrgId, key: string, expiredBefore: Date): Promise<StoredKey | null> {
    const rows = await query<{ request_hash: string; response_body: unknown }>(
      this.ds,
      sql`SELECT request_hash, response_body FROM idempotency_keys
           WHERE organization_id = ${organizationId} AND key = ${key}
             AND created_at >= ${expiredBefore}`,
    );
    return rows.length
      ? { requestHash: rows[0].request_hash, responseBody: rows[0].response_body }
      : null;
  }

  /** Stores the response of the claim `claimId`. */
  async complete(
    organizationId: OrgId,
    key: string,
    claimId: string,
    responseBody: unknown,
  ): Promise<void> {
    await query(
      this.ds,
      sql`UPDATE idempotency_keys
             SET response_body = ${JSON.stringify(responseBody)}::json, locked_until = NULL
           WHERE organization_id = ${organizationId} AND key = ${key} AND claim_id = ${claimId}`,
    );
  }

  /** Gives up the claim `claimId` (the request failed): the key is free for a retry. */
  async release(organizationId: OrgId, key: string, claimId: string): Promise<void> {
    await query(
      this.ds,
      sql`DELETE FROM idempotency_keys
           WHERE organization_id = ${organizationId} AND key = ${key} AND claim_id = ${claimId}
             AND response_body IS NULL`,
    );
  }
}
