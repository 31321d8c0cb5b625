// The engagement store's part of the message retention purge (§8), across organizations: the
// events of the messages the purge deleted, of those messages' organizations.
import { Injectable } from '@nestjs/common';
import type { OrgId } from '../../common/org-id';
import { query, sql } from '../../database/sql';
import { EngagementDatabase } from './engagement-database';

/** A message the retention purge deleted. */
export interface PurgedMessage {
  organizationId: OrgId;
  id: string;
}

@Injectable()
export class EngagementSweeper {
  constructor(private readonly db: EngagementDatabase) {}

  /** Removes the events of purged messages; answers how many. */
  async deleteForMessages(messages: PurgedMessage[]): Promise<number> {
    if (!messages.length) return 0;
    const ds = await this.db.connection();
    const organizations = [...new Set(messages.map((m) => m.organizationId))];
    const [{ n }] = await query<{ n: number }>(
      ds,
      sql`WITH gone AS (
            DELETE FROM engagement_events
             WHERE message_id = ANY(${messages.map((m) => m.id)}::uuid[])
               AND organization_id = ANY(${organizations}::uuid[])
            RETURNING 1)
          SELECT count(*)::int AS n FROM gone`,
    );
    return n;
  }
}
