// The engagement events' own connection (§8): to ENGAGEMENT_DATABASE_URL or by default the main
// database, so an outage there never takes the message log down with it. It opens lazily and is
// tried again on the next use after a failure. The table comes from the engagement baseline
// migration (database/migrations), applied with the others.
import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';

@Injectable()
export class EngagementDatabase implements OnModuleDestroy {
  private readonly logger = new Logger(EngagementDatabase.name);
  private opening?: Promise<DataSource>;
  private ds?: DataSource;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @InjectDataSource() private readonly main: DataSource,
  ) {}

  /** The open connection; rejects while the store is unavailable. */
  connection(): Promise<DataSource> {
    if (!this.opening) {
      this.opening = this.open().catch((err: Error) => {
        this.opening = undefined;
        throw err;
      });
    }
    return this.opening;
  }

  private url(): string {
    return this.config.engagementDatabaseUrl ?? (this.main.options as { url: string }).url;
  }

  private async open(): Promise<DataSource> {
    const ds = new DataSource({
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
    });
    await ds.initialize();
    this.ds = ds;
    return ds;
  }

  async onModuleDestroy(): Promise<void> {
    const ds = this.ds;
    this.ds = undefined;
    this.opening = undefined;
    if (ds?.isInitialized)
      await ds
        .destroy()
        .catch((e: Error) =>
          this.logger.warn({ msg: 'engagement store close failed', err: e.message }),
        );
  }
}
