import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Room on each page of messages and message_recipients for the delivery worker's new row
 * versions. The claim (lease_until, updated_at) and the recipient's new state (status,
 * retry_count, next/first attempt) change no indexed column, so with free space on the page they
 * are HOT updates: no entries in the six indexes of messages or the two of message_recipients,
 * and a fraction of the WAL. The run record of a message changes next_attempt_at (indexed) and
 * stays a normal update. New pages only.
 */
export class DeliveryFillfactor1763700001800 implements MigrationInterface {
  name = 'DeliveryFillfactor1763700001800';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE messages SET (fillfactor = 60)`);
    await q.query(`ALTER TABLE message_recipients SET (fillfactor = 60)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE message_recipients RESET (fillfactor)`);
    await q.query(`ALTER TABLE messages RESET (fillfactor)`);
  }
}
