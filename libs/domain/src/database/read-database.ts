// The connection of the reads that tolerate a replica's lag (DATABASE_READ_URL); without it, the
// primary's own DataSource.
import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, DataSourceOptions } from 'typeorm';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { dataSourceOptions } from './data-source-options';
import { LazyDataSource } from './lazy-data-source';

/** Every session on the replica refuses writes, so a write routed there by mistake fails loudly. */
const READ_ONLY_SESSION = '-c default_transaction_read_only=on';

@Injectable()
export class ReadDatabase implements OnModuleDestroy {
  private readonly replica?: LazyDataSource;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    @InjectDataSource() private readonly primary: DataSource,
  ) {
    const url = config.databaseReadUrl;
    if (!url) return;
    // The primary's pool settings, DB_POOL_SIZE included: each server then sees at most
    // DB_POOL_SIZE connections per process, the figure operators size max_connections by.
    this.replica = new LazyDataSource(() => {
      const options = dataSourceOptions(url, {}, config.dbPoolSize);
      return {
        ...options,
        extra: { ...(options.extra as object), options: READ_ONLY_SESSION },
      } as DataSourceOptions;
    }, 'read replica');
  }

  /**
   * The replica when one is configured, else the primary. A replica that cannot be reached
   * rejects: the read answers 503 rather than loading the primary the operator meant to spare.
   */
  connection(): Promise<DataSource> {
    return this.replica ? this.replica.connection() : Promise.resolve(this.primary);
  }

  onModuleDestroy(): Promise<void> {
    return this.replica?.close() ?? Promise.resolve();
  }
}
