// The engagement events' own connection (§8): to ENGAGEMENT_DATABASE_URL or by default the main
// database, so an outage there never takes the message log down with it. It opens lazily and is
// tried again on the next use after a failure. The table comes from the engagement baseline
// migration (database/migrations), applied with the others.
import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { LazyDataSource } from '../../database/lazy-data-source';

@Injectable()
export class EngagementDatabase implements OnModuleDestroy {
  private readonly store: LazyDataSource;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @InjectDataSource() private readonly main: DataSource,
  ) {
    this.store = new LazyDataSource(
      () => ({
        type: 'postgres',
        url: this.url(),
        synchronize: false,
        logging: false,
        // Short timeouts: a hung engagement store must not hold up the message endpoint.
        extra: {
          max: 5,
          connectionTimeoutMillis: 2000,
          query_timeout: 3000,
          statement_timeout: 3000,
        },
      }),
      'engagement store',
    );
  }

  /** The open connection; rejects while the store is unavailable. */
  connection(): Promise<DataSource> {
    return this.store.connection();
  }

  private url(): string {
    return this.config.engagementDatabaseUrl ?? (this.main.options as { url: string }).url;
  }

  onModuleDestroy(): Promise<void> {
    return this.store.close();
  }
}
