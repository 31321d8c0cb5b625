// Contacts indexes (docs/performance.md, "Contacts indexes"): the ones no statement needs go.
import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `contacts_org_status_idx (organization_id, status)` is dropped: its key is a prefix of
 * `contacts_org_status_created_tags_idx`, which answers a status condition with the same plan
 * node, and the rows of one organization come from any index led by organization_id; every
 * contact inserted writes each index of the table.
 */
export class ContactsIndexes1763600000900 implements MigrationInterface {
  name = 'ContactsIndexes1763600000900';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX contacts_org_status_idx`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX contacts_org_status_idx ON contacts (organization_id, status)`);
  }
}
