// Writes one batch of import rows, set-based, through the contacts repositories.
import { Injectable, Optional } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { Clock, SystemClock } from '../common/clock';
import { CHANNEL_INFO } from '../contacts/contact-channels.entity';
import {
  ContactChannelsRepository,
  PhoneChannel,
  SealedPhone,
} from '../contacts/contact-channels.repository';
import { ContactListsRepository } from '../contacts/contact-lists.repository';
import { ContactTagsRepository } from '../contacts/contact-tags.repository';
import { ContactTagsService } from '../contacts/contact-tags.service';
import { deriveDisplayName } from '../contacts/contact.entity';
import { ContactsRepository } from '../contacts/contacts.repository';
import type { DuplicateHandling } from './contact-import.entity';
import type { EmailHashFilter } from './email-hash-filter';
import { ImportFailure, LIST_DELETED } from './import-errors';
import type { ImportRowValues } from './import-fields';
import type { PreparedRow, StoredPhone } from './import-rows';

export interface BatchContext {
  organizationId: string;
  duplicateHandling: DuplicateHandling;
  listId: string | null;
  /** The import's tags (every row gets them). */
  tags: string[];
}

export interface BatchResult {
  newCount: number;
  duplicateCount: number;
}

/** One contact the batch writes to: created by it, or an existing one a duplicate row matched. */
interface Target {
  contactId: string;
  isNew: boolean;
  /** Field values to write (new) or to overwrite with (existing, update mode). */
  values: ImportRowValues | null;
  emailEnc: string | null;
  emailHash: string | null;
  phones: Record<PhoneChannel, Map<string, StoredPhone & { usernameEnc?: string }>>;
  tags: Set<string>;
  /** Sorted tag ids: the import's and the rows' own. */
  tagIds: string[];
}

const FIELD_KEYS = [
  'firstName',
  'lastName',
  'timezone',
  'language',
  'status',
  'notes',
] as const satisfies readonly (keyof ImportRowValues)[];

const PHONE_CHANNELS: PhoneChannel[] = ['sms', 'whatsapp', 'telegram'];

function target(contactId: string, isNew: boolean, row: PreparedRow | null): Target {
  return {
    contactId,
    isNew,
    values: row ? { ...row.values } : null,
    emailEnc: row?.emailEnc ?? null,
    emailHash: row?.emailHash ?? null,
    phones: { sms: new Map(), whatsapp: new Map(), telegram: new Map() },
    tags: new Set(),
    tagIds: [],
  };
}

/** Update mode: a later row's non-empty cells overwrite the earlier values. */
function merge(into: ImportRowValues, from: ImportRowValues): void {
  for (const key of FIELD_KEYS) {
    const v = from[key];
    if (v !== null) (into as unknown as Record<string, unknown>)[key] = v;
  }
  if (from.customFields) into.customFields = { ...(into.customFields ?? {}), ...from.customFields };
}

function addPhones(t: Target, row: PreparedRow): void {
  for (const channel of PHONE_CHANNELS) {
    const phone = row[channel];
    if (phone && !t.phones[channel].has(phone.hash)) t.phones[channel].set(phone.hash, phone);
  }
}

/** The targets' records of one phone channel, each contact's first one marked. */
function phonesOf(targets: Target[], channel: PhoneChannel): SealedPhone[] {
  return targets.flatMap((t) =>
    [...t.phones[channel].values()].map((p, i) => ({
      contactId: t.contactId,
      enc: p.enc,
      hash: p.hash,
      countryCode: p.countryCode,
      first: i === 0,
      usernameEnc: p.usernameEnc,
    })),
  );
}

@Injectable()
export class ImportWriter {
  private readonly clock: Clock;

  constructor(
    private readonly contacts: ContactsRepository,
    private readonly channels: ContactChannelsRepository,
    private readonly lists: ContactListsRepository,
    private readonly tagRepo: ContactTagsRepository,
    private readonly tags: ContactTagsService,
    @Optional() clock?: Clock,
  ) {
    this.clock = clock ?? new SystemClock();
  }

  /**
   * Writes one batch in `em`'s transaction: the new contacts and their channel records first,
   * then, after `beforeShared` (which orders this batch after the one before it), everything
   * that touches rows other batches touch too.
   * @param filter the organization's known email hashes: only rows it may contain are looked up
   *   in the database (null: look every row up).
   */
  async writeBatch(
    em: EntityManager,
    ctx: BatchContext,
    rows: PreparedRow[],
    filter: EmailHashFilter | null,
    beforeShared: () => Promise<void>,
  ): Promise<BatchResult> {
    const orgId = ctx.organizationId;
    const update = ctx.duplicateHandling === 'update';
    const candidates = filter
      ? rows.filter((r) => r.emailCandidates.some((h) => filter.mightContain(h)))
      : rows;
    // Existing contacts are locked so none is deleted (or, in update mode, changed) meanwhile.
    const existing = await this.contacts.idsByEmailHash(
      orgId,
      [...new Set(candidates.flatMap((r) => r.emailCandidates))],
      update ? 'FOR NO KEY UPDATE' : 'FOR KEY SHARE',
      em,
    );

    const targets: Target[] = [];
    const byHash = new Map<string, Target>();
    const existingTargets = new Map<string, Target>();
    let newCount = 0;
    let duplicateCount = 0;
    for (const row of rows) {
      let t: Target | undefined;
      const existingId = row.emailCandidates.map((h) => existing.get(h)).find(Boolean);
      if (existingId) {
        t = existingTargets.get(existingId);
        if (!t) {
          t = target(existingId, false, null);
          existingTargets.set(existingId, t);
          targets.push(t);
        }
      } else if (row.emailHash) {
        t = byHash.get(row.emailHash);
      }
      if (t) {
        duplicateCount++;
        if (update) {
          if (t.values) merge(t.values, row.values);
          else t.values = { ...row.values };
          addPhones(t, row);
        }
      } else {
        newCount++;
        t = target(randomUUID(), true, row);
        addPhones(t, row);
        if (row.emailHash) byHash.set(row.emailHash, t);
        targets.push(t);
      }
      for (const tag of row.values.tags) t.tags.add(tag);
    }

    // Tag ids first: new contacts are inserted with their channel_mask and tag_ids already what
    // the records and tags inserted next make them, so the triggers that keep those columns find
    // nothing to rewrite.
    await this.resolveTags(em, orgId, targets, ctx.tags);
    const created = targets.filter((t) => t.isNew);
    const existingOnes = targets.filter((t) => !t.isNew);
    await this.contacts.insertMany(
      orgId,
      created.map((t) => {
        const v = t.values!;
        return {
          id: t.contactId,
          firstName: v.firstName,
          lastName: v.lastName,
          displayName: deriveDisplayName(v.firstName, v.lastName, v.email),
          timezone: v.timezone,
          language: v.language,
          status: v.status ?? 'active',
          customFields: v.customFields,
          notes: v.notes,
          lastActivityAt: null,
          channelMask:
            (t.emailEnc ? CHANNEL_INFO.email.bit : 0) |
            PHONE_CHANNELS.reduce((m, ch) => m | (t.phones[ch].size ? CHANNEL_INFO[ch].bit : 0), 0),
          tagIds: t.tagIds,
        };
      }),
      em,
    );
    await this.channels.insertEmails(
      orgId,
      created.flatMap((t) =>
        t.emailEnc && t.emailHash
          ? [{ contactId: t.contactId, enc: t.emailEnc, hash: t.emailHash }]
          : [],
      ),
      em,
    );
    for (const ch of PHONE_CHANNELS)
      await this.channels.insertPhones(orgId, ch, phonesOf(created, ch), false, em);
    // What follows changes rows other batches may change too (existing contacts, the list and
    // its counters, tag assignments): it waits for the batch before this one to commit.
    await beforeShared();
    if (update) {
      await this.contacts.overwriteMany(
        orgId,
        existingOnes.flatMap((t) => (t.values ? [{ id: t.contactId, ...t.values }] : [])),
        em,
      );
    }
    for (const ch of PHONE_CHANNELS)
      await this.channels.insertPhones(orgId, ch, phonesOf(existingOnes, ch), true, em);
    if (ctx.listId) {
      // New contacts are this transaction's own; existing ones were locked above.
      if (!(await this.lists.lock(orgId, [ctx.listId], em)).length)
        throw new ImportFailure(LIST_DELETED);
      await this.lists.subscribe(
        orgId,
        ctx.listId,
        targets.map((t) => t.contactId),
        this.clock.now(),
        em,
      );
    }
    await this.assignTags(orgId, created, em, true);
    await this.assignTags(orgId, existingOnes, em, false);
    return { newCount, duplicateCount };
  }

  /**
   * Sets each target's tag ids (sorted): the import's tags on every one, each row's own tags on
   * its contact. Creates the tags the organization does not have yet.
   */
  private async resolveTags(
    em: EntityManager,
    orgId: string,
    targets: Target[],
    importTags: string[],
  ): Promise<void> {
    const names = new Set<string>(importTags);
    for (const t of targets) for (const n of t.tags) names.add(n);
    if (!names.size) return;
    const tags = await this.tags.ensure(em, orgId, [...names]);
    const idOf = new Map(tags.map((t) => [t.name.toLowerCase(), t.id.toLowerCase()]));
    const importTagIds = importTags
      .map((n) => idOf.get(n.toLowerCase()))
      .filter((id): id is string => !!id);
    for (const t of targets) {
      const ids = new Set<string>(importTagIds);
      for (const n of t.tags) {
        const id = idOf.get(n.toLowerCase());
        if (id) ids.add(id);
      }
      t.tagIds = [...ids].sort();
    }
  }

  /**
   * Tag assignments of the batch's contacts. New contacts have none yet and their pairs are
   * distinct, so theirs go in as a plain insert (`fresh`); existing ones may have some already.
   */
  private async assignTags(orgId: string, targets: Target[], em: EntityManager, fresh: boolean) {
    const contactIds = targets.flatMap((t) => t.tagIds.map(() => t.contactId));
    const tagIds = targets.flatMap((t) => t.tagIds);
    await this.tagRepo.assign(orgId, contactIds, tagIds, em, fresh);
  }
}
