import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Engagement events (opens, clicks, unsubscribes, complaints) in their own store, which
 * ENGAGEMENT_DATABASE_URL may place in another database: no foreign key to messages, and this
 * migration runs through the engagement connection with its own migrations table.
 */
export class EngagementEvents1763700000410 implements MigrationInterface {
  name = 'EngagementEvents1763700000410';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE IF NOT EXISTS engagement_events (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        organization_id uuid NOT NULL,
        message_id uuid NOT NULL,
        recipient_idx smallint NOT NULL,
        type text NOT NULL CHECK (type IN ('opened','clicked','unsubscribed','complained')),
        url text,
        user_agent text,
        remote_ip text,
        occurred_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(
      `CREATE INDEX IF NOT EXISTS engagement_events_message_idx
         ON engagement_events (message_id, occurred_at, id)`,
    );
    await q.query(
      `CREATE INDEX IF NOT EXISTS engagement_events_occurred_idx ON engagement_events (occurred_at)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS engagement_events`);
  }
}
