// `mp-admin migrate`: applies pending migrations to the main and the engagement database.
import { DataSource } from 'typeorm';
import { migrateEngagementDatabase, runMigrations } from '@app/domain';
import { AdminCommand } from './admin-command';

export const migrateCommand: AdminCommand = {
  name: 'migrate',
  summary: 'apply pending database migrations',
  description:
    'Applies pending migrations to DATABASE_URL (or the embedded database) and to ' +
    'ENGAGEMENT_DATABASE_URL when it is set. Safe to run at any time: migrations run once, ' +
    'under a lock. `npm run migrate` runs this command.',
  options: {},
  examples: ['mp-admin migrate --json'],
  async run({ app, config }) {
    const ds = app.get(DataSource);
    const migrated = await runMigrations(ds);
    const mainUrl = (ds.options as { url: string }).url;
    const engagement = await migrateEngagementDatabase(config.engagementDatabaseUrl, mainUrl);
    return engagement.length ? { migrated, engagementMigrated: engagement } : { migrated };
  },
};
