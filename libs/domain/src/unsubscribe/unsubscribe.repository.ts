// The SQL of unsubscribing (§14): what a token's job id refers to, and the record of each
// message's unsubscribe. A token is resolved across organizations (it is signed, and its job id is
// unique); everything after that is scoped by the organization it resolved to. The membership
// changes are the contacts area's (ContactListsService.unsubscribeIn).
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { asOrgId, OrgId } from '../common/org-id';
import { query, sql } from '../database/sql';

/** What an unsubscribe acts on. */
export interface UnsubscribeTarget {
  organizationId: OrgId;
  jobId: string;
  /** messages.id while the message log keeps the message, else null. */
  messageId: string | null;
  contactId: string;
  /** The list of a list campaign's message; null: every list of the contact (§14). */
  listId: string | null;
}

export type UnsubscribeSource = 'one-click' | 'mailto';

@Injectable()
export class UnsubscribeRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /**
   * The message a job id names and whom its unsubscribe concerns: from the message log, else
   * (retention purged the message) from the campaign's work list. Null when neither knows it or it
   * names no contact.
   */
  async resolve(jobId: string): Promise<UnsubscribeTarget | null> {
    const rows = await query<{
      organization_id: string;
      message_id: string | null;
      contact_id: string | null;
      list_id: string | null;
    }>(
      this.ds,
      sql`SELECT m.organization_id, m.id AS message_id, m.contact_id,
                 CASE WHEN m.source = 'campaign' THEN c.list_id END AS list_id
            FROM messages m
            LEFT JOIN campaigns c ON c.id = m.campaign_id AND c.organization_id = m.organization_id
           WHERE m.job_id = ${jobId}
          UNION ALL
          SELECT r.organization_id, NULL, r.contact_id, c.list_id
            FROM campaign_recipients r
            JOIN campaigns c ON c.id = r.campaign_id AND c.organization_id = r.organization_id
           WHERE r.job_id = ${jobId}
             AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.job_id = ${jobId})
           LIMIT 1`,
    );
    const r = rows[0];
    if (!r?.contact_id) return null;
    return {
      organizationId: asOrgId(r.organization_id),
      jobId,
      messageId: r.message_id,
      contactId: r.contact_id,
      listId: r.list_id,
    };
  }

  /** Records the message's unsubscribe; false when it was recorded before. */
  async record(
    em: EntityManager,
    organizationId: OrgId,
    target: UnsubscribeTarget,
    source: UnsubscribeSource,
    at: Date,
  ): Promise<boolean> {
    const rows = await query<{ job_id: string }>(
      em,
      sql`INSERT INTO unsubscribes (job_id, organization_id, contact_id, source, created_at)
          SELECT ${target.jobId}, ${organizationId}::uuid, c.id, ${source}, ${at}::timestamptz
            FROM (SELECT ${target.contactId}::uuid AS want) w
            LEFT JOIN contacts c ON c.id = w.want AND c.organization_id = ${organizationId}::uuid
          ON CONFLICT (job_id) DO NOTHING
          RETURNING job_id`,
    );
    return rows.length > 0;
  }
}
