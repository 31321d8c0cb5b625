// A secondary connection that opens at its first use, so a store that is down at start delays
// nothing: each use while it is down fails (the edges answer that as an outage) and the next use
// tries again.
import { Logger } from '@nestjs/common';
import { DataSource, DataSourceOptions } from 'typeorm';

export class LazyDataSource {
  private readonly logger: Logger;
  private opening?: Promise<DataSource>;
  private ds?: DataSource;

  /** `options` is called at each opening; `label` names the store in logs. */
  constructor(
    private readonly options: () => DataSourceOptions,
    private readonly label: string,
  ) {
    this.logger = new Logger(label);
  }

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

  private async open(): Promise<DataSource> {
    const ds = new DataSource(this.options());
    await ds.initialize();
    this.ds = ds;
    return ds;
  }

  /** Closes the pool if it is open; a failure to close is logged, never thrown. */
  async close(): Promise<void> {
    const ds = this.ds;
    this.ds = undefined;
    this.opening = undefined;
    if (ds?.isInitialized)
      await ds
        .destroy()
        .catch((e: Error) =>
          this.logger.warn({ msg: `${this.label} close failed`, err: e.message }),
        );
  }
}
