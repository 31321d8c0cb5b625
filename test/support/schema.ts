// A database's schema as stable text (from pg_catalog), to compare a migrated database with the
// committed snapshot: tables with their columns, storage and options, constraints, indexes,
// triggers, sequences, functions with their bodies, views, comments and extensions.
import { Client } from 'pg';

/** TypeORM's own bookkeeping: its rows differ per database, its shape is TypeORM's. */
const MIGRATIONS_TABLES = ['schema_migrations'];

/** Objects created by an extension (pg_trgm, pgcrypto) are the extension's, not ours. */
const NOT_FROM_EXTENSION = (catalog: string, oid: string) => `
  NOT EXISTS (SELECT 1 FROM pg_depend d
               WHERE d.classid = '${catalog}'::regclass AND d.objid = ${oid} AND d.deptype = 'e')`;

const TABLES = (ignored: string[]) => `
  SELECT c.oid, c.relname, c.relkind, coalesce(array_to_string(
           ARRAY(SELECT o FROM unnest(c.reloptions) o ORDER BY o), ', '), '') AS options
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
   WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'v', 'm')
     AND c.relname NOT IN (${ignored.map((t) => `'${t}'`).join(', ')})
     AND ${NOT_FROM_EXTENSION('pg_class', 'c.oid')}
   ORDER BY c.relname`;

// Storage and collation are shown only where a column departs from its type's default (e.g.
// STORAGE EXTERNAL, COLLATE "C").
const COLUMNS = `
  SELECT a.attrelid AS table_oid, a.attname, format_type(a.atttypid, a.atttypmod) AS type,
         CASE WHEN a.attcollation <> t.typcollation
              THEN (SELECT quote_ident(collname) FROM pg_collation WHERE oid = a.attcollation)
         END AS collation,
         a.attnotnull, pg_get_expr(ad.adbin, ad.adrelid) AS default_expr, a.attidentity,
         a.attgenerated,
         CASE WHEN a.attstorage <> t.typstorage
              THEN CASE a.attstorage WHEN 'p' THEN 'PLAIN' WHEN 'e' THEN 'EXTERNAL'
                                     WHEN 'm' THEN 'MAIN' ELSE 'EXTENDED' END END AS storage,
         col_description(a.attrelid, a.attnum) AS comment
    FROM pg_attribute a
    JOIN pg_type t ON t.oid = a.atttypid
    LEFT JOIN pg_attrdef ad ON ad.adrelid = a.attrelid AND ad.adnum = a.attnum
   WHERE a.attnum > 0 AND NOT a.attisdropped
   ORDER BY a.attrelid, a.attnum`;

// NOT NULL is a column property above; PostgreSQL 18 also lists it here as contype 'n'.
const CONSTRAINTS = `
  SELECT conrelid AS table_oid, conname, pg_get_constraintdef(oid) AS def
    FROM pg_constraint WHERE conrelid <> 0 AND contype <> 'n'
   ORDER BY conname`;

const INDEXES = `
  SELECT i.indrelid AS table_oid, c.relname, pg_get_indexdef(i.indexrelid) AS def
    FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
   ORDER BY c.relname`;

// A trigger's definition does not say whether it is enabled.
const TRIGGERS = `
  SELECT tgrelid AS table_oid, tgname,
         pg_get_triggerdef(oid) || CASE tgenabled WHEN 'O' THEN '' ELSE ' -- enabled ' || tgenabled::text END AS def
    FROM pg_trigger WHERE NOT tgisinternal
   ORDER BY tgname`;

const SEQUENCES = (ignored: string[]) => `
  SELECT c.relname, format_type(s.seqtypid, NULL) AS type, s.seqstart, s.seqincrement, s.seqmin,
         s.seqmax, s.seqcache, s.seqcycle,
         (SELECT t.relname || '.' || a.attname || ' (' || d.deptype::text || ')'
            FROM pg_depend d
            JOIN pg_class t ON t.oid = d.refobjid
            JOIN pg_attribute a ON a.attrelid = d.refobjid AND a.attnum = d.refobjsubid
           WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid
             AND d.refclassid = 'pg_class'::regclass AND d.deptype IN ('a', 'i')) AS owned_by
    FROM pg_sequence s
    JOIN pg_class c ON c.oid = s.seqrelid
    JOIN pg_namespace n ON n.oid = c.relnamespace
   WHERE n.nspname = 'public' AND c.relname NOT IN (${ignored.map((t) => `'${t}_id_seq'`).join(', ')})
   ORDER BY c.relname`;

const FUNCTIONS = `
  SELECT p.oid::regprocedure::text AS signature, pg_get_functiondef(p.oid) AS def,
         obj_description(p.oid, 'pg_proc') AS comment
    FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
   WHERE n.nspname = 'public' AND ${NOT_FROM_EXTENSION('pg_proc', 'p.oid')}
   ORDER BY 1`;

const EXTENSIONS = `SELECT extname FROM pg_extension WHERE extname <> 'plpgsql' ORDER BY 1`;

interface TableRow {
  oid: number;
  relname: string;
  relkind: string;
  options: string;
}

function byTable<R extends { table_oid: number }>(rows: R[]): Map<number, R[]> {
  const map = new Map<number, R[]>();
  for (const r of rows) map.set(r.table_oid, [...(map.get(r.table_oid) ?? []), r]);
  return map;
}

/** The schema of the database at `url` (schema `public`), as text, leaving out `ignored` tables. */
export async function describeSchema(url: string, ignored = MIGRATIONS_TABLES): Promise<string> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const rows = async <R>(sql: string): Promise<R[]> => (await client.query(sql)).rows as R[];
    const tables = await rows<TableRow>(TABLES(ignored));
    const columns = byTable(
      await rows<{
        table_oid: number;
        attname: string;
        type: string;
        collation: string | null;
        attnotnull: boolean;
        default_expr: string | null;
        attidentity: string;
        attgenerated: string;
        storage: string | null;
        comment: string | null;
      }>(COLUMNS),
    );
    const constraints = byTable(
      await rows<{ table_oid: number; conname: string; def: string }>(CONSTRAINTS),
    );
    const indexes = byTable(await rows<{ table_oid: number; def: string }>(INDEXES));
    const triggers = byTable(await rows<{ table_oid: number; def: string }>(TRIGGERS));

    const out: string[] = [];
    for (const e of await rows<{ extname: string }>(EXTENSIONS)) out.push(`extension ${e.extname}`);
    for (const t of tables) {
      const kind = { r: 'table', p: 'partitioned table', v: 'view', m: 'materialized view' }[
        t.relkind
      ];
      out.push('', `${kind} ${t.relname}${t.options ? ` WITH (${t.options})` : ''}`);
      const comment = (
        await client.query<{ c: string | null }>(`SELECT obj_description($1, 'pg_class') AS c`, [
          t.oid,
        ])
      ).rows[0].c;
      if (comment) out.push(`  comment ${JSON.stringify(comment)}`);
      if (t.relkind === 'v' || t.relkind === 'm') {
        const def = await client.query<{ d: string }>(`SELECT pg_get_viewdef($1) AS d`, [t.oid]);
        out.push(`  as ${def.rows[0].d.trim()}`);
      }
      for (const c of columns.get(t.oid) ?? []) {
        const parts = [`  column ${c.attname} ${c.type}`];
        if (c.collation) parts.push(`COLLATE ${c.collation}`);
        if (c.attnotnull) parts.push('NOT NULL');
        if (c.attidentity)
          parts.push(
            c.attidentity === 'a'
              ? 'GENERATED ALWAYS AS IDENTITY'
              : 'GENERATED BY DEFAULT AS IDENTITY',
          );
        if (c.attgenerated) parts.push(`GENERATED ALWAYS AS (${c.default_expr}) STORED`);
        else if (c.default_expr !== null) parts.push(`DEFAULT ${c.default_expr}`);
        if (c.storage) parts.push(`STORAGE ${c.storage}`);
        if (c.comment) parts.push(`COMMENT ${JSON.stringify(c.comment)}`);
        out.push(parts.join(' '));
      }
      for (const c of constraints.get(t.oid) ?? []) out.push(`  constraint ${c.conname} ${c.def}`);
      for (const i of indexes.get(t.oid) ?? []) out.push(`  ${i.def}`);
      for (const g of triggers.get(t.oid) ?? []) out.push(`  ${g.def}`);
    }
    out.push('');
    for (const s of await rows<Record<string, unknown>>(SEQUENCES(ignored))) {
      out.push(
        `sequence ${String(s.relname)} ${String(s.type)} start ${String(s.seqstart)} increment ${String(s.seqincrement)}` +
          ` min ${String(s.seqmin)} max ${String(s.seqmax)} cache ${String(s.seqcache)}` +
          `${s.seqcycle ? ' cycle' : ''} owned by ${String(s.owned_by ?? '-')}`,
      );
    }
    for (const f of await rows<{ signature: string; def: string; comment: string | null }>(
      FUNCTIONS,
    )) {
      out.push('', `function ${f.signature}`);
      if (f.comment) out.push(`  comment ${JSON.stringify(f.comment)}`);
      out.push(f.def.trimEnd());
    }
    return out.join('\n') + '\n';
  } finally {
    await client.end();
  }
}
