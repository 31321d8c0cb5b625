// Engagement baseline (§8): open, click, unsubscribe and complaint events. Also runs on its own
// against a separate engagement database (ENGAGEMENT_DATABASE_URL; see ENGAGEMENT_MIGRATIONS).
import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Self-contained on purpose: no foreign key to messages (the retention purge deletes the events
 * of purged messages) and nothing from another baseline, so the same migration builds the table
 * in the main database (main chain) or in a database of its own.
 */
export class Engagement1763600000410 implements MigrationInterface {
  name = 'Engagement1763600000410';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE engagement_events (
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
      `CREATE INDEX engagement_events_message_idx ON engagement_events (message_id, occurred_at, id)`,
    );
    await q.query(`CREATE INDEX engagement_events_occurred_idx ON engagement_events (occurred_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE engagement_events`);
  }
}
