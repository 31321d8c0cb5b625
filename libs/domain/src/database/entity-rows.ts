// Rows of a raw statement as entities, through TypeORM's own column hydration.
import type { DataSource, ObjectLiteral } from 'typeorm';

/**
 * `rows` (keyed by column name, or `<prefix>_<column>`) as instances of `entity`. Columns the
 * entity does not select (`select: false`) are left out, as TypeORM leaves them out.
 */
export function toEntities<T extends ObjectLiteral>(
  ds: DataSource,
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  entity: Function,
  rows: Record<string, unknown>[],
  prefix?: string,
): T[] {
  const meta = ds.getMetadata(entity);
  const columns = meta.columns.filter((c) => c.isSelect);
  const proto = (meta.target as { prototype: object }).prototype;
  return rows.map((row) => {
    const out = Object.create(proto) as ObjectLiteral;
    for (const column of columns) {
      const key = prefix ? `${prefix}_${column.databaseName}` : column.databaseName;
      out[column.propertyName] = ds.driver.prepareHydratedValue(row[key], column);
    }
    return out as T;
  });
}

/** The entity's selected columns as a select list: `a.col` or, with `prefix`, `a.col AS p_col`. */
export function selectList(
  ds: DataSource,
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  entity: Function,
  alias: string,
  prefix?: string,
): string {
  return ds
    .getMetadata(entity)
    .columns.filter((c) => c.isSelect)
    .map((c) => `${alias}.${c.databaseName}${prefix ? ` AS ${prefix}_${c.databaseName}` : ''}`)
    .join(', ');
}
