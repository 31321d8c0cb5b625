import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The outbox of contact events (contact.created|updated|deleted|unsubscribed,
 * push.token_invalidated): a change writes its event here in its own transaction, so an event is
 * never lost between the commit and the webhook bus. The api turns the rows into webhook
 * deliveries right after the commit; rows it could not turn (a database restart, a crash) are
 * taken by the worker's sweeper once `next_attempt_at` has passed. Only ids are kept: the event's
 * data is the contact as it is when the event is raised, read then.
 */
export class ContactEventOutbox1763700003300 implements MigrationInterface {
  name = 'ContactEventOutbox1763700003300';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE contact_event_outbox (
        id bigserial PRIMARY KEY,
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        type text NOT NULL,
        contact_id uuid NOT NULL,
        refs jsonb,
        occurred_at timestamptz NOT NULL,
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL,
        last_error text
      )`);
    await q.query(
      `CREATE INDEX contact_event_outbox_due_idx ON contact_event_outbox (next_attempt_at, id)`,
    );
    await q.query(
      `CREATE INDEX contact_event_outbox_org_idx ON contact_event_outbox (organization_id)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE contact_event_outbox`);
  }
}
