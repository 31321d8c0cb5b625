// The TypeORM connection: DATABASE_URL or the embedded server; migrations on start when asked;
// the connection of lag-tolerant reads (ReadDatabase).
import { DynamicModule, Logger, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { configureFieldEncryption, FieldCipher } from '../crypto/field-encryption';
import { dataSourceOptions } from './data-source-options';
import { startEmbeddedPostgres } from './embedded-postgres';
import { migrateEngagementDatabase, runMigrations } from './migrate';
import { ReadDatabase } from './read-database';

export async function resolveDatabaseUrl(config: AppConfig): Promise<string> {
  if (config.databaseUrl) return config.databaseUrl;
  const logger = new Logger('EmbeddedPostgres');
  const handle = await startEmbeddedPostgres(config.dataDir, config.embeddedPgPort, (m) =>
    logger.log(m),
  );
  return handle.url;
}

/**
 * A separate engagement database that cannot be reached is not a reason to stay down (an outage
 * there never takes the message log with it): the store answers as during any outage, and the
 * next start or `npm run migrate` applies what is missing.
 */
async function migrateEngagement(engagementUrl: string | undefined, mainUrl: string) {
  const logger = new Logger('Migrations');
  try {
    const ran = await migrateEngagementDatabase(engagementUrl, mainUrl);
    if (ran.length) logger.log({ msg: 'engagement database migrations applied', migrations: ran });
  } catch (err) {
    logger.warn({
      msg: 'engagement database migrations not applied',
      err: (err as Error).message,
    });
  }
}

@Module({})
export class DatabaseModule {
  static forRoot(opts: { migrate?: boolean } = {}): DynamicModule {
    return {
      module: DatabaseModule,
      global: true,
      providers: [ReadDatabase],
      exports: [ReadDatabase],
      imports: [
        TypeOrmModule.forRootAsync({
          inject: [APP_CONFIG],
          useFactory: async (config: AppConfig) => {
            configureFieldEncryption(
              new FieldCipher(config.encryptionKey, config.encryptionKeysOld),
            );
            const url = await resolveDatabaseUrl(config);
            if (opts.migrate ?? config.runMigrations) {
              const ds = new DataSource(dataSourceOptions(url, {}, 2));
              await ds.initialize();
              try {
                const ran = await runMigrations(ds);
                if (ran.length)
                  new Logger('Migrations').log({ msg: 'migrations applied', migrations: ran });
              } finally {
                await ds.destroy();
              }
              await migrateEngagement(config.engagementDatabaseUrl, url);
            }
            return dataSourceOptions(url, {}, config.dbPoolSize);
          },
        }),
      ],
    };
  }
}
