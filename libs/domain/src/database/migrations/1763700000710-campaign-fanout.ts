import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Indexes of the campaign fan-out and of the report's revenuePerEmail (issue 9, phase B).
 *
 * - messages (campaign_id, contact_id): before the fan-out sends a recipient it checks whether a
 *   message of that (campaign, contact) already exists (a worker that crashed after sending but
 *   before recording it), one indexed probe per batch.
 * - message_attempts (organization_id, attempted_at) of delivered attempts: the report counts the
 *   campaign emails delivered in its window without scanning every attempt of the organization.
 */
export class CampaignFanout1763700000710 implements MigrationInterface {
  name = 'CampaignFanout1763700000710';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX messages_campaign_contact_idx ON messages (campaign_id, contact_id)
         WHERE campaign_id IS NOT NULL`,
    );
    await q.query(
      `CREATE INDEX message_attempts_org_delivered_idx ON message_attempts (organization_id, attempted_at)
         INCLUDE (message_id) WHERE status = 'delivered'`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS message_attempts_org_delivered_idx`);
    await q.query(`DROP INDEX IF EXISTS messages_campaign_contact_idx`);
  }
}
