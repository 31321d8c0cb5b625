// Every migration, in order: one baseline per area. Append new ones at the end, timestamped after the last.
import { Tenancy1763600000000 } from './1763600000000-tenancy';
import { Contacts1763600000100 } from './1763600000100-contacts';
import { Segments1763600000200 } from './1763600000200-segments';
import { Imports1763600000300 } from './1763600000300-imports';
import { Messaging1763600000400 } from './1763600000400-messaging';
import { Engagement1763600000410 } from './1763600000410-engagement';
import { Webhooks1763600000500 } from './1763600000500-webhooks';
import { Campaigns1763600000600 } from './1763600000600-campaigns';
import { Sending1763600000700 } from './1763600000700-sending';
import { Channels1763600000800 } from './1763600000800-channels';

/** TypeORM's record of applied migrations, in the main and in a separate engagement database. */
export const MIGRATIONS_TABLE = 'schema_migrations';

export const MIGRATIONS = [
  Tenancy1763600000000,
  Contacts1763600000100,
  Segments1763600000200,
  Imports1763600000300,
  Messaging1763600000400,
  Engagement1763600000410,
  Webhooks1763600000500,
  Campaigns1763600000600,
  Sending1763600000700,
  Channels1763600000800,
];

/**
 * The chain of a separate engagement database (ENGAGEMENT_DATABASE_URL). Its migrations are also
 * in MIGRATIONS under the same names and the same migrations table, so run against the main
 * database it finds them applied.
 */
export const ENGAGEMENT_MIGRATIONS = [Engagement1763600000410];
