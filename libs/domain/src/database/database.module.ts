// The TypeORM connection: DATABASE_URL or the embedded server; migrations on start when asked.
import { DynamicModule, Logger, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { configureFieldEncryption, FieldCipher } from '../crypto/field-encryption';
import { dataSourceOptions } from './data-source-options';
import { startEmbeddedPostgres } from './embedded-postgres';
import { runMigrations } from './migrate';

export async function resolveDatabaseUrl(config: AppConfig): Promise<string> {
  if (config.databaseUrl) return config.databaseUrl;
  const logger = new Logger('EmbeddedPostgres');
  const handle = await startEmbeddedPostgres(config.dataDir, config.embeddedPgPort, (m) =>
    logger.log(m),
  );
  return handle.url;
}

@Module({})
export class DatabaseModule {
  static forRoot(opts: { migrate?: boolean } = {}): DynamicModule {
    return {
      module: DatabaseModule,
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
            }
            return dataSourceOptions(url, {}, config.dbPoolSize);
          },
        }),
      ],
    };
  }
}
