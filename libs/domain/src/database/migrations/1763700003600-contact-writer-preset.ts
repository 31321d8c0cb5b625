import { MigrationInterface, QueryRunner } from 'typeorm';
import { CHANNEL_TABLE_BITS } from './1763700000200-contacts-indexes';
import {
  maskInsertFunction,
  TAG_ID_SOURCES,
  tagIdsFunction,
} from './1763700001500-contact-trigger-costs';

/**
 * The channel-mask insert triggers (six channel tables) and the tag_ids insert trigger (tag
 * assignments) return at once when the transaction-local setting `contacts.preset_by_writer` is
 * `on`. The contact importer sets it (set_config(..., true), then back to `off`) only around the
 * statements that add records and tag assignments to contacts it inserted in the same transaction
 * with `channel_mask` and `tag_ids` already right, so the triggers would find nothing to change:
 * for those rows they cost two index probes of contacts per row each (the lock pass and the
 * update's filter), ~7 % of the database's CPU of an import (docs/imports.md, round 4). Every
 * other writer leaves the setting unset and the triggers run as before.
 */
const GUARD = `
      IF current_setting('contacts.preset_by_writer', true) = 'on' THEN RETURN NULL; END IF;`;

const INSERT_IDS = TAG_ID_SOURCES.find(([op]) => op === 'insert')![1];

export class ContactWriterPreset1763700003600 implements MigrationInterface {
  name = 'ContactWriterPreset1763700003600';

  async up(q: QueryRunner): Promise<void> {
    for (const [table, bit] of CHANNEL_TABLE_BITS)
      await q.query(maskInsertFunction(table, bit, GUARD));
    await q.query(tagIdsFunction('insert', INSERT_IDS, GUARD));
  }

  async down(q: QueryRunner): Promise<void> {
    for (const [table, bit] of CHANNEL_TABLE_BITS) await q.query(maskInsertFunction(table, bit));
    await q.query(tagIdsFunction('insert', INSERT_IDS));
  }
}
