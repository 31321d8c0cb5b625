// Rows of a raw statement as entities, through TypeORM's own column hydration.
import type { DataSource, ObjectLiteral } from 'typeorm';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata';
import { isoFromPgJsonTimestamp } from './json-instant';

/**
 * An entity as a printed-only read gives it (toListedEntities): every timestamp either a Date or
 * already its `toISOString` text.
 */
export type Listed<T> = {
  [K in keyof T]: T[K] extends Date
    ? Date | string
    : T[K] extends Date | null
      ? Date | string | null
      : T[K];
};

const TIMESTAMP_TYPES = new Set(['timestamptz', 'timestamp with time zone']);

function isTimestamp(column: ColumnMetadata): boolean {
  return (
    !column.transformer &&
    !column.isArray &&
    typeof column.type === 'string' &&
    TIMESTAMP_TYPES.has(column.type)
  );
}

// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
type EntityClass = Function;

/** The columns TypeORM selects for `entity` (not those marked `select: false`). */
function selectedColumns(ds: DataSource, entity: EntityClass): ColumnMetadata[] {
  return ds.getMetadata(entity).columns.filter((c) => c.isSelect);
}

/** `rows` as instances of `entity`, each selected column's value given by `hydrate`. */
function hydrateRows(
  ds: DataSource,
  entity: EntityClass,
  rows: Record<string, unknown>[],
  prefix: string | undefined,
  hydrate: (column: ColumnMetadata, value: unknown) => unknown,
): ObjectLiteral[] {
  const columns = selectedColumns(ds, entity);
  const proto = (ds.getMetadata(entity).target as { prototype: object }).prototype;
  return rows.map((row) => {
    const out = Object.create(proto) as ObjectLiteral;
    for (const column of columns) {
      const key = prefix ? `${prefix}_${column.databaseName}` : column.databaseName;
      out[column.propertyName] = hydrate(column, row[key]);
    }
    return out;
  });
}

/**
 * `rows` (keyed by column name, or `<prefix>_<column>`) as instances of `entity`. Columns the
 * entity does not select (`select: false`) are left out, as TypeORM leaves them out.
 */
export function toEntities<T extends ObjectLiteral>(
  ds: DataSource,
  entity: EntityClass,
  rows: Record<string, unknown>[],
  prefix?: string,
): T[] {
  return hydrateRows(ds, entity, rows, prefix, (column, value) =>
    ds.driver.prepareHydratedValue(value, column),
  ) as T[];
}

/**
 * As `toEntities`, for rows built by PostgreSQL's JSON functions that are only printed (the GET
 * /contacts page): a timestamp column keeps its instant as `toISOString`'s text (json-instant.ts)
 * instead of becoming a Date and being printed from it. Any other value, and a timestamp
 * json-instant does not recognise, is hydrated as `toEntities` does. Kept for speed
 * (docs/performance.md).
 */
export function toListedEntities<T extends ObjectLiteral>(
  ds: DataSource,
  entity: EntityClass,
  rows: Record<string, unknown>[],
): Listed<T>[] {
  return hydrateRows(ds, entity, rows, undefined, (column, value) => {
    const text =
      typeof value === 'string' && isTimestamp(column) ? isoFromPgJsonTimestamp(value) : null;
    return text ?? ds.driver.prepareHydratedValue(value, column);
  }) as Listed<T>[];
}

/** The entity's selected columns as a select list: `a.col` or, with `prefix`, `a.col AS p_col`. */
export function selectList(
  ds: DataSource,
  entity: EntityClass,
  alias: string,
  prefix?: string,
): string {
  return selectedColumns(ds, entity)
    .map((c) => `${alias}.${c.databaseName}${prefix ? ` AS ${prefix}_${c.databaseName}` : ''}`)
    .join(', ');
}
