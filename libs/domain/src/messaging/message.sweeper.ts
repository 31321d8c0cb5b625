// The message log's upkeep across organizations (§1, §8): the sweeper's scan for messages whose
// queue job was lost, and the retention purge.
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { asOrgId } from '../common/org-id';
import { query, sql } from '../database/sql';
import type { PurgedMessage } from './engagement/engagement.sweeper';
import type { Redispatch, SweepCursor } from './message.types';

@Injectable()
export class MessageSweeper {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /**
   * The sweeper's scan, across organizations: in one transaction, locks up to `limit` messages
   * that have been due for longer than the grace period, are not leased and come after `after`
   * in due order (SKIP LOCKED: replicas split the work), lets `decide` say which lost their queue
   * job, and bumps their dispatch sequence so a fresh job id can be used. Returns those, how many
   * rows were scanned, and the position of the last one (the next scan starts after it).
   */
  async sweepDue(
    now: Date,
    graceMs: number,
    limit: number,
    after: SweepCursor | null,
    decide: (rows: Redispatch[]) => Promise<Redispatch[]>,
  ): Promise<{ lost: Redispatch[]; scanned: number; last: SweepCursor | null }> {
    return this.ds.transaction(async (em) => {
      const due = new Date(now.getTime() - graceMs);
      const rows = await query<{
        id: string;
        organization_id: string;
        dispatch_seq: number;
        due_at: string;
      }>(
        em,
        sql`SELECT id, organization_id, dispatch_seq,
                   to_char(next_attempt_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')
                     AS due_at
              FROM messages
             WHERE next_attempt_at IS NOT NULL AND next_attempt_at <= ${due}::timestamptz
               AND (lease_until IS NULL OR lease_until < ${now}::timestamptz)
               AND (${after?.dueAt ?? null}::timestamptz IS NULL
                    OR (next_attempt_at, id) > (${after?.dueAt ?? null}::timestamptz,
                                                ${after?.id ?? null}::uuid))
             ORDER BY next_attempt_at, id
             LIMIT ${limit}
             FOR UPDATE SKIP LOCKED`,
      );
      const tail = rows.at(-1);
      const last = tail ? { dueAt: tail.due_at, id: tail.id } : null;
      const lost = await decide(
        rows.map((r) => ({
          // Rows this scan read: each message's own organization.
          organizationId: asOrgId(r.organization_id),
          id: r.id,
          dispatchSeq: r.dispatch_seq,
        })),
      );
      if (!lost.length) return { lost: [], scanned: rows.length, last };
      const bumped = await query<{ id: string; organization_id: string; dispatch_seq: number }>(
        em,
        sql`UPDATE messages SET dispatch_seq = dispatch_seq + 1
             WHERE id = ANY(${lost.map((r) => r.id)}::uuid[])
            RETURNING id, organization_id, dispatch_seq`,
      );
      return {
        lost: bumped.map((r) => ({
          organizationId: asOrgId(r.organization_id),
          id: r.id,
          dispatchSeq: r.dispatch_seq,
        })),
        scanned: rows.length,
        last,
      };
    });
  }

  /**
   * The retention purge, across organizations: deletes up to `batch` messages older than their
   * organization's retention; answers them.
   */
  async purgeExpired(now: Date, batch: number): Promise<PurgedMessage[]> {
    const rows = await query<{ id: string; organization_id: string }>(
      this.ds,
      sql`DELETE FROM messages WHERE id IN (
            SELECT m.id FROM messages m JOIN organizations o ON o.id = m.organization_id
             WHERE m.created_at < ${now}::timestamptz - make_interval(days => o.message_retention_days)
             LIMIT ${batch}
             FOR UPDATE OF m SKIP LOCKED)
          RETURNING id, organization_id`,
    );
    return rows.map((r) => ({ organizationId: asOrgId(r.organization_id), id: r.id }));
  }
}
