import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A process that caches organizations (the SMTP relay's OrganizationCache) learns of every change
 * when it commits: a row trigger NOTIFYs `organization_changed` with the organization id on
 * UPDATE and DELETE. NOTIFY is transactional, so a rolled-back change announces nothing, and a
 * notification arrives only once the new row is visible to other sessions.
 */
export class OrganizationChangedNotify1763700001600 implements MigrationInterface {
  name = 'OrganizationChangedNotify1763700001600';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION organization_changed_notify() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('organization_changed', OLD.id::text);
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER organization_changed_notify AFTER UPDATE OR DELETE ON organizations
        FOR EACH ROW EXECUTE FUNCTION organization_changed_notify()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER organization_changed_notify ON organizations`);
    await q.query(`DROP FUNCTION organization_changed_notify()`);
  }
}
