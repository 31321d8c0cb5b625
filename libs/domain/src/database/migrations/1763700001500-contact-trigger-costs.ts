import { MigrationInterface, QueryRunner } from 'typeorm';
import { CHANNEL_TABLE_BITS } from './1763700000200-contacts-indexes';

/**
 * What the contacts triggers cost a bulk write (bench/import.ts, one 2,000-row import batch):
 *
 * - `contact_counters_on_update` joined `old_rows` with `new_rows` on id. Transition tables have
 *   no statistics (estimated at one row), so the join was a nested loop: 2 x 4,000,000
 *   comparisons for a 2,000-row UPDATE, about 3 s of one core. Any statement updating many
 *   contacts paid it (the tag_ids trigger below, the import's update mode). The net change per
 *   (organization, status, channel mask) is the same without the join: -1 for each old row,
 *   +1 for each new row, groups that cancel out dropped.
 * - The tag_ids and channel-mask triggers locked every contact of the statement, then updated
 *   those whose value was not already right. A contact whose current version this transaction
 *   wrote (it inserted or updated the row) is already locked by it, and no other transaction
 *   can see an inserted one, so the lock is skipped for those rows (`xmin` is the current
 *   transaction; inside a subtransaction the ids differ and the row is locked as before). The
 *   tag_ids UPDATE skips contacts whose array is already right: the importer writes tag_ids
 *   with the contacts it inserts, so its tag assignments no longer rewrite every new contact
 *   (a second, non-HOT version with a new entry in each of the 12 indexes of contacts).
 * - The functions replaced here run with `jit = off`: on a few thousand transition rows the
 *   planner's estimates (transition tables have no statistics) crossed the JIT thresholds, and
 *   compiling took 0.5-0.7 s per statement, more than the statement itself.
 * - The tag_ids insert trigger groups the added tags per contact before probing contacts: joined
 *   directly, the planner hashed the whole contacts table (a sequential scan per statement).
 * - The statements of these trigger functions that read contacts run through EXECUTE, so they
 *   are planned at each call. PL/pgSQL keeps a parameterless statement's first plan for the
 *   session, and a session that fired them first while the organization's contacts were few
 *   (an import's first batch) kept a sequential scan of contacts: six per batch afterwards,
 *   which at 300,000 contacts brought an import down to 100 rows/s. Planning a statement costs
 *   well under a millisecond; these run once per statement that changes contacts' channels or
 *   tags.
 */
const OWN_ROW = `xmin = pg_current_xact_id()::xid`;

/** A statement planned at each call (see above). */
const dynamic = (sql: string) => `EXECUTE $q$ ${sql} $q$`;
const TAG_IDS_OF = `coalesce((SELECT array_agg(a.tag_id ORDER BY a.tag_id)
                                 FROM contact_tag_assignments a
                                WHERE a.contact_id = c.id), '{}')`;

/** `guard`: statements run first (migration 1763700003600 adds its early return). */
export function tagIdsFunction(op: string, ids: string, guard = ''): string {
  // After an insert, a contact whose array already holds every new tag is right (its array was
  // right before, or its writer set it); a delete or update recomputes and compares.
  // (The added tags are grouped per contact first: the planner then probes contacts by key
  // instead of hashing the whole table.)
  const update =
    op === 'insert'
      ? `UPDATE contacts c SET tag_ids = ${TAG_IDS_OF}
           FROM (SELECT contact_id, array_agg(tag_id) AS added FROM new_rows GROUP BY 1) n
          WHERE c.id = n.contact_id AND NOT c.tag_ids @> n.added`
      : `UPDATE contacts c SET tag_ids = ${TAG_IDS_OF}
          WHERE c.id IN (${ids}) AND c.tag_ids IS DISTINCT FROM ${TAG_IDS_OF}`;
  return `
    CREATE OR REPLACE FUNCTION contact_tag_ids_on_${op}() RETURNS trigger LANGUAGE plpgsql
    SET jit = off AS $$
    BEGIN${guard}
      ${dynamic(`SELECT 1 FROM contacts WHERE id IN (${ids}) AND NOT ${OWN_ROW} ORDER BY id FOR NO KEY UPDATE`)};
      ${dynamic(update)};
      RETURN NULL;
    END $$`;
}

export function maskInsertFunction(table: string, bit: number, guard = ''): string {
  return `
    CREATE OR REPLACE FUNCTION ${table}_mask_on_insert() RETURNS trigger LANGUAGE plpgsql
    SET jit = off AS $$
    BEGIN${guard}
      ${dynamic(`SELECT 1 FROM contacts WHERE id IN (SELECT contact_id FROM new_rows) AND NOT ${OWN_ROW} ORDER BY id FOR NO KEY UPDATE`)};
      ${dynamic(`UPDATE contacts c SET channel_mask = c.channel_mask | ${bit} WHERE c.id IN (SELECT contact_id FROM new_rows) AND c.channel_mask & ${bit} = 0`)};
      RETURN NULL;
    END $$`;
}

function maskDeleteFunction(table: string, bit: number): string {
  return `
    CREATE OR REPLACE FUNCTION ${table}_mask_on_delete() RETURNS trigger LANGUAGE plpgsql
    SET jit = off AS $$
    BEGIN
      ${dynamic(`SELECT 1 FROM contacts WHERE id IN (SELECT contact_id FROM old_rows) ORDER BY id FOR NO KEY UPDATE`)};
      ${dynamic(`UPDATE contacts c SET channel_mask = c.channel_mask & ~(${bit})::smallint WHERE c.id IN (SELECT contact_id FROM old_rows) AND c.channel_mask & ${bit} <> 0 AND NOT EXISTS (SELECT 1 FROM ${table} t WHERE t.contact_id = c.id)`)};
      RETURN NULL;
    END $$`;
}

/** The functions as migration 1763700000200 created them (for down()). */
function originalMaskFunctions(table: string, bit: number): string[] {
  return [
    `
    CREATE OR REPLACE FUNCTION ${table}_mask_on_insert() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM 1 FROM contacts WHERE id IN (SELECT contact_id FROM new_rows)
        ORDER BY id FOR NO KEY UPDATE;
      UPDATE contacts c SET channel_mask = c.channel_mask | ${bit}
       WHERE c.id IN (SELECT contact_id FROM new_rows) AND c.channel_mask & ${bit} = 0;
      RETURN NULL;
    END $$`,
    `
    CREATE OR REPLACE FUNCTION ${table}_mask_on_delete() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM 1 FROM contacts WHERE id IN (SELECT contact_id FROM old_rows)
        ORDER BY id FOR NO KEY UPDATE;
      UPDATE contacts c SET channel_mask = c.channel_mask & ~(${bit})::smallint
       WHERE c.id IN (SELECT contact_id FROM old_rows) AND c.channel_mask & ${bit} <> 0
         AND NOT EXISTS (SELECT 1 FROM ${table} t WHERE t.contact_id = c.id);
      RETURN NULL;
    END $$`,
  ];
}

function countersUpdateFunction(linear: boolean): string {
  const rows = linear
    ? `SELECT organization_id, status, channel_mask, sum(n) AS n FROM (
         SELECT organization_id, coalesce(status, '') AS status, channel_mask, -1 AS n FROM old_rows
         UNION ALL
         SELECT organization_id, coalesce(status, ''), channel_mask, 1 FROM new_rows
       ) d GROUP BY 1, 2, 3 HAVING sum(n) <> 0 ORDER BY 1, 2, 3`
    : `SELECT organization_id, status, channel_mask, sum(n) AS n FROM (
         SELECT o.organization_id, coalesce(o.status, '') AS status, o.channel_mask, -1 AS n
           FROM old_rows o JOIN new_rows nw ON nw.id = o.id
          WHERE o.status IS DISTINCT FROM nw.status OR o.channel_mask <> nw.channel_mask
         UNION ALL
         SELECT nw.organization_id, coalesce(nw.status, ''), nw.channel_mask, 1
           FROM old_rows o JOIN new_rows nw ON nw.id = o.id
          WHERE o.status IS DISTINCT FROM nw.status OR o.channel_mask <> nw.channel_mask
       ) d GROUP BY 1, 2, 3 HAVING sum(n) <> 0 ORDER BY 1, 2, 3`;
  return `
    CREATE OR REPLACE FUNCTION contact_counters_on_update() RETURNS trigger LANGUAGE plpgsql
    ${linear ? 'SET jit = off' : ''} AS $$
    DECLARE r record;
    BEGIN
      FOR r IN ${rows} LOOP
        PERFORM contact_counters_add(r.organization_id, r.status, r.channel_mask, r.n);
      END LOOP;
      RETURN NULL;
    END $$`;
}

export const TAG_ID_SOURCES: [op: string, ids: string][] = [
  ['insert', 'SELECT contact_id FROM new_rows'],
  ['delete', 'SELECT contact_id FROM old_rows'],
  ['update', 'SELECT contact_id FROM old_rows UNION SELECT contact_id FROM new_rows'],
];

export class ContactTriggerCosts1763700001500 implements MigrationInterface {
  name = 'ContactTriggerCosts1763700001500';

  async up(q: QueryRunner): Promise<void> {
    await q.query(countersUpdateFunction(true));
    for (const [op, ids] of TAG_ID_SOURCES) await q.query(tagIdsFunction(op, ids));
    for (const [table, bit] of CHANNEL_TABLE_BITS) {
      await q.query(maskInsertFunction(table, bit));
      await q.query(maskDeleteFunction(table, bit));
    }
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(countersUpdateFunction(false));
    for (const [op, ids] of TAG_ID_SOURCES) {
      await q.query(`
        CREATE OR REPLACE FUNCTION contact_tag_ids_on_${op}() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          PERFORM 1 FROM contacts WHERE id IN (${ids}) ORDER BY id FOR NO KEY UPDATE;
          UPDATE contacts c SET tag_ids = ${TAG_IDS_OF} WHERE c.id IN (${ids});
          RETURN NULL;
        END $$`);
    }
    for (const [table, bit] of CHANNEL_TABLE_BITS)
      for (const sql of originalMaskFunctions(table, bit)) await q.query(sql);
  }
}
