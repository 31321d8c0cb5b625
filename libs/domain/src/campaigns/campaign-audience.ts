// Who a campaign reaches: the subscribed members of its list, or the members of its segment (static
// or dynamic, through the segments area's contactSelection), each with one email address (the
// primary one). Materialised into campaign_recipients in one statement.
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { NotFoundError } from '../errors/domain-errors';
import { SegmentsService } from '../segments/segments.service';

export interface CampaignTarget {
  listId: string | null;
  segmentId: string | null;
}

/** The contact's primary email, else its oldest one (a LATERAL subquery over contact_emails). */
const PRIMARY_EMAIL = (contactId: string) => `
  SELECT ce.id FROM contact_emails ce
   WHERE ce.contact_id = ${contactId} AND ce.organization_id = $2
   ORDER BY ce.is_primary DESC, ce.created_at, ce.id
   LIMIT 1`;

@Injectable()
export class CampaignAudience {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly segments: SegmentsService,
  ) {}

  /** 404 when the list or segment is not one of the organization's. */
  async assertTargetExists(
    organizationId: string,
    target: CampaignTarget,
    em: EntityManager = this.ds.manager,
  ): Promise<void> {
    if (target.listId) {
      const rows: unknown[] = await em.query(
        `SELECT 1 FROM contact_lists WHERE id = $1 AND organization_id = $2`,
        [target.listId, organizationId],
      );
      if (!rows.length) throw new NotFoundError('Contact list');
      return;
    }
    // 404 `Segment not found` when it is not the organization's.
    await this.segments.contactSelection(organizationId, target.segmentId!);
  }

  /**
   * Inserts one pending recipient per audience member with an email and returns how many the
   * campaign has. The contact's primary email is used; a contact with emails but none flagged
   * primary falls back to its oldest one. Idempotent (ON CONFLICT DO NOTHING).
   */
  async materialise(
    em: EntityManager,
    organizationId: string,
    campaignId: string,
    target: CampaignTarget,
    now: Date,
  ): Promise<number> {
    if (target.listId) {
      await em.query(
        `INSERT INTO campaign_recipients
                (campaign_id, contact_id, organization_id, contact_email_id, status, next_attempt_at)
         SELECT $1, m.contact_id, $2, e.id, 'pending', $4
           FROM contact_list_memberships m
           JOIN LATERAL (${PRIMARY_EMAIL('m.contact_id')}) e ON true
          WHERE m.contact_list_id = $3 AND m.organization_id = $2 AND m.status = 'subscribed'
         ON CONFLICT (campaign_id, contact_id) DO NOTHING`,
        [campaignId, organizationId, target.listId, now],
      );
    } else {
      // A static segment's members or a dynamic segment's rules, evaluated now; the predicate is
      // over `contacts c` with its placeholders after $3.
      const sel = await this.segments.contactSelection(organizationId, target.segmentId!, 3);
      await em.query(
        `INSERT INTO campaign_recipients
                (campaign_id, contact_id, organization_id, contact_email_id, status, next_attempt_at)
         SELECT $1, c.id, $2, e.id, 'pending', $3
           FROM contacts c
           JOIN LATERAL (${PRIMARY_EMAIL('c.id')}) e ON true
          WHERE c.organization_id = $2 AND (${sel.predicate})
         ON CONFLICT (campaign_id, contact_id) DO NOTHING`,
        [campaignId, organizationId, now, ...sel.params],
      );
    }
    const [{ n }]: { n: number }[] = await em.query(
      `SELECT count(*)::int AS n FROM campaign_recipients WHERE campaign_id = $1`,
      [campaignId],
    );
    return n;
  }
}
