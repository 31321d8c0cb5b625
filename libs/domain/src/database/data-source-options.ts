// TypeORM data source options: entities, migrations, naming, pool.
import type { DataSourceOptions } from 'typeorm';
import { ENTITIES } from './entities';
import { MIGRATIONS, MIGRATIONS_TABLE } from './migrations';
import { SnakeNamingStrategy } from './snake-naming.strategy';

export function dataSourceOptions(
  url: string,
  extra: Partial<DataSourceOptions> = {},
  poolSize = 20,
): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsTableName: MIGRATIONS_TABLE,
    migrationsTransactionMode: 'each',
    namingStrategy: new SnakeNamingStrategy(),
    synchronize: false,
    logging: false,
    extra: { max: poolSize, connectionTimeoutMillis: 5000 },
    ...extra,
  } as DataSourceOptions;
}
