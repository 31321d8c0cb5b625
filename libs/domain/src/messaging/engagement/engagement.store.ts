// Engagement events of one organization's messages (§8), in their own store (engagement-database.ts):
// opens, clicks, unsubscribes and complaints, written as they happen and read with the message.
import { Injectable } from '@nestjs/common';
import type { OrgId } from '../../common/org-id';
import { query, sql } from '../../database/sql';
import { EngagementDatabase } from './engagement-database';

export const ENGAGEMENT_EVENT_TYPES = ['opened', 'clicked', 'unsubscribed', 'complained'] as const;
export type EngagementEventType = (typeof ENGAGEMENT_EVENT_TYPES)[number];

/** One event of one recipient of a message; the organization is the caller's. */
export interface EngagementEventInput {
  messageId: string;
  recipientIndex: number;
  type: EngagementEventType;
  url?: string | null;
  userAgent?: string | null;
  remoteIp?: string | null;
  occurredAt: Date;
}

export interface EngagementEventRow {
  recipientIndex: number;
  type: EngagementEventType;
  url: string | null;
  userAgent: string | null;
  remoteIp: string | null;
  occurredAt: Date;
}

@Injectable()
export class EngagementStore {
  constructor(private readonly db: EngagementDatabase) {}

  /** Writes one event of the organization's message. Throws when the store is unavailable. */
  async record(orgId: OrgId, e: EngagementEventInput): Promise<void> {
    const ds = await this.db.connection();
    await query(
      ds,
      sql`INSERT INTO engagement_events (organization_id, message_id, recipient_idx, type, url,
            user_agent, remote_ip, occurred_at)
          VALUES (${orgId}::uuid, ${e.messageId}::uuid, ${e.recipientIndex}, ${e.type},
            ${e.url ?? null}, ${e.userAgent ?? null}, ${e.remoteIp ?? null},
            ${e.occurredAt}::timestamptz)`,
    );
  }

  /** Events of one message of the organization, oldest first. Throws when the store is unavailable. */
  async forMessage(orgId: OrgId, messageId: string, limit: number): Promise<EngagementEventRow[]> {
    const ds = await this.db.connection();
    const rows = await query<{
      recipient_idx: number;
      type: EngagementEventType;
      url: string | null;
      user_agent: string | null;
      remote_ip: string | null;
      occurred_at: Date;
    }>(
      ds,
      sql`SELECT recipient_idx, type, url, user_agent, remote_ip, occurred_at
            FROM engagement_events
           WHERE organization_id = ${orgId}::uuid AND message_id = ${messageId}::uuid
           ORDER BY occurred_at, id
           LIMIT ${limit}`,
    );
    return rows.map((r) => ({
      recipientIndex: r.recipient_idx,
      type: r.type,
      url: r.url,
      userAgent: r.user_agent,
      remoteIp: r.remote_ip,
      occurredAt: r.occurred_at,
    }));
  }
}
