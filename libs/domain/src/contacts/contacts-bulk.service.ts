// Contacts created in bulk, set-based: an import's batches, and the API's create (a batch of one).
import { Injectable, Optional } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { Clock, SystemClock } from '../common/clock';
import type { OrgId } from '../common/org-id';
import { NotFoundError } from '../errors/domain-errors';
import { CHANNEL_INFO, CONTACT_CHANNELS, ContactChannel } from './contact-channels.entity';
import {
  ContactChannelsRepository,
  PhoneChannel,
  SealedValue,
} from './contact-channels.repository';
import { ChannelInputOf, ContactChannelsService } from './contact-channels.service';
import { ContactListsRepository } from './contact-lists.repository';
import { ContactTagsRepository } from './contact-tags.repository';
import { ContactTagsService } from './contact-tags.service';
import type { ContactView } from './contact-views';
import { ContactEvents } from './contact.events';
import { deriveDisplayName } from './contact.entity';
import { ContactsRepository, isDuplicateEmail } from './contacts.repository';
import {
  BulkTarget,
  channelMask,
  hashesToLookUp,
  PHONE_CHANNELS,
  phonesOf,
  planTargets,
  trimmedOrNull,
} from './bulk-targets';
import type { ContactFields } from './contacts.service';

/** An email sealed before the transaction: ciphertext, blind index under the current key. */
export interface SealedEmail extends SealedValue {
  /** Its blind indexes under every key in use (a key rotation): duplicates are looked up by them. */
  candidates: string[];
}

/** A phone number sealed before the transaction; a Telegram record adds the handle, encrypted. */
export interface SealedPhoneNumber extends SealedValue {
  countryCode: string;
  usernameEnc?: string;
}

/** Channel records as the API takes them, each checked and inserted by its channel's rules. */
export type ChannelRecordsInput = { [C in ContactChannel]?: ChannelInputOf[C][] };

/** One contact to create, or to merge into the existing contact that owns its email. */
export interface NewContactRow {
  /** Absent or null: no value (`status` absent is `active` on create). */
  fields: ContactFields;
  /** Its email address in the clear: the display name falls back to it. */
  emailAddress: string | null;
  /** Its email, sealed: the record of a new contact, and how a duplicate is found. */
  email: SealedEmail | null;
  phones: Partial<Record<PhoneChannel, SealedPhoneNumber>>;
  /** Records with statuses, flags and dates (the API's create). */
  records?: ChannelRecordsInput;
  /** Tag names; missing tags are created. */
  tags: string[];
}

export type DuplicateMode = 'skip' | 'update';

export interface BulkCreateOptions {
  /**
   * A row whose email is an existing contact's (or an earlier row's): `skip` leaves that
   * contact's fields and records as they are, `update` overwrites them with the row's values
   * and adds the phone numbers it lacks. Either way it gets the tags and lists.
   */
  duplicates: DuplicateMode;
  /** Tags every row's contact gets besides its own. */
  tags: string[];
  /** Lists every row's contact joins (an unsubscribed membership is subscribed again). */
  listIds: string[];
  /** Emits contact.created for each new contact, and answers their views. */
  events: boolean;
  /** What a list that is not the organization's fails with (404 by default). */
  missingList?: () => Error;
}

/**
 * The first step of a bulk create, done: the new contacts, their tags and their records are
 * written. The rest touches rows other transactions write too (existing contacts and their tags,
 * lists and their counters): a caller that orders its transactions runs it once its turn comes.
 */
export interface ContactsWrite {
  newCount: number;
  duplicateCount: number;
  /** Writes the rest; answers the views of the new contacts when events are on. */
  finish(): Promise<ContactView[]>;
}

/**
 * Whether a transaction failed on an email another transaction wrote after this one looked it
 * up (the unique index on the email's blind index): run again, every row looked up, the row is
 * a duplicate.
 */
export function emailWrittenMeanwhile(err: unknown): boolean {
  return isDuplicateEmail(err);
}

@Injectable()
export class ContactsBulkService {
  private readonly clock: Clock;

  constructor(
    private readonly contacts: ContactsRepository,
    private readonly channels: ContactChannelsRepository,
    private readonly channelRecords: ContactChannelsService,
    private readonly lists: ContactListsRepository,
    private readonly tagRepo: ContactTagsRepository,
    private readonly tags: ContactTagsService,
    private readonly events: ContactEvents,
    @Optional() clock?: Clock,
  ) {
    this.clock = clock ?? new SystemClock();
  }

  /** Creates (or merges) the rows' contacts in `em`'s transaction: both steps of `begin`. */
  async createMany(
    em: EntityManager,
    orgId: OrgId,
    rows: NewContactRow[],
    options: BulkCreateOptions,
  ): Promise<ContactView[]> {
    return (await this.begin(em, orgId, rows, options)).finish();
  }

  /**
   * Creates the rows' contacts, set-based (a statement per table, not per row): duplicates are
   * found by email blind index (the organization's contacts, locked so none is deleted or, in
   * update mode, changed meanwhile, and the batch's earlier rows); new contacts are inserted
   * with their records, existing ones merged. Missing tags are created. Answers once the new
   * contacts and their records are written; `finish` writes the rest.
   */
  async begin(
    em: EntityManager,
    orgId: OrgId,
    rows: NewContactRow[],
    options: BulkCreateOptions,
  ): Promise<ContactsWrite> {
    const existing = await this.contacts.idsByEmailHash(
      orgId,
      hashesToLookUp(rows),
      options.duplicates === 'update' ? 'FOR NO KEY UPDATE' : 'FOR KEY SHARE',
      em,
    );
    const { targets, newCount, duplicateCount } = planTargets(rows, existing, options.duplicates);

    // Tag ids first: new contacts are inserted with their tags, and with the channel_mask the
    // records inserted next make theirs, so the triggers that keep it find nothing to rewrite.
    await this.resolveTags(em, orgId, targets, options.tags);
    const created = targets.filter((t) => t.isNew);
    const existingOnes = targets.filter((t) => !t.isNew);
    await this.contacts.insertMany(
      orgId,
      created.map((t) => {
        const f = t.fields!;
        return {
          id: t.contactId,
          firstName: trimmedOrNull(f.firstName),
          lastName: trimmedOrNull(f.lastName),
          displayName:
            trimmedOrNull(f.displayName) ??
            deriveDisplayName(f.firstName, f.lastName, t.emailAddress),
          timezone: f.timezone ?? null,
          language: f.language ?? null,
          status: f.status === undefined ? 'active' : f.status,
          customFields: f.customFields ?? null,
          notes: f.notes ?? null,
          lastActivityAt: f.lastActivityAt ?? null,
          channelMask: channelMask(t),
          tagIds: t.tagIds,
        };
      }),
      em,
    );
    await this.channels.insertEmails(
      orgId,
      created.flatMap((t) =>
        t.email ? [{ contactId: t.contactId, enc: t.email.enc, hash: t.email.hash }] : [],
      ),
      em,
    );
    for (const ch of PHONE_CHANNELS)
      await this.channels.insertPhones(orgId, ch, phonesOf(created, ch), false, em);
    await this.insertRecords(em, orgId, created);
    return {
      newCount,
      duplicateCount,
      finish: () => this.finish(em, orgId, options, targets, created, existingOnes),
    };
  }

  /** What changes rows other transactions may change too. */
  private async finish(
    em: EntityManager,
    orgId: OrgId,
    options: BulkCreateOptions,
    targets: BulkTarget[],
    created: BulkTarget[],
    existingOnes: BulkTarget[],
  ): Promise<ContactView[]> {
    if (options.duplicates === 'update') {
      await this.contacts.overwriteMany(
        orgId,
        existingOnes.flatMap(({ contactId: id, fields: f }) =>
          f
            ? [
                {
                  id,
                  firstName: f.firstName ?? null,
                  lastName: f.lastName ?? null,
                  timezone: f.timezone ?? null,
                  language: f.language ?? null,
                  status: f.status ?? null,
                  notes: f.notes ?? null,
                  customFields: f.customFields ?? null,
                },
              ]
            : [],
        ),
        em,
      );
    }
    for (const ch of PHONE_CHANNELS)
      await this.channels.insertPhones(orgId, ch, phonesOf(existingOnes, ch), true, em);
    await this.subscribe(em, orgId, options, targets);
    await this.tagRepo.assign(
      orgId,
      existingOnes.flatMap((t) => t.tagIds.map(() => t.contactId)),
      existingOnes.flatMap((t) => t.tagIds),
      em,
    );
    if (!options.events) return [];
    const views: ContactView[] = [];
    // contact.created is emitted here, and only here, with the insert.
    for (const t of created)
      views.push(await this.events.changed(em, orgId, t.contactId, 'contact.created'));
    return views;
  }

  /** Records given as the API takes them: in channel order, each by its channel's rules. */
  private async insertRecords(em: EntityManager, orgId: OrgId, created: BulkTarget[]) {
    for (const t of created) {
      if (!t.records) continue;
      for (const channel of CONTACT_CHANNELS) {
        const key = CHANNEL_INFO[channel].key;
        const records = (t.records[channel] ?? []) as ChannelInputOf[ContactChannel][];
        for (const [i, record] of records.entries()) {
          await this.channelRecords.insertRecord(
            em,
            orgId,
            t.contactId,
            channel,
            record,
            `${key}.${i}.`,
          );
        }
      }
    }
  }

  /**
   * Every target joins the lists. New contacts are this transaction's own and existing ones were
   * locked by the lookup; the lists are locked next, in id order.
   */
  private async subscribe(
    em: EntityManager,
    orgId: OrgId,
    options: BulkCreateOptions,
    targets: BulkTarget[],
  ): Promise<void> {
    const listIds = [...new Set(options.listIds)].sort();
    if (!listIds.length || !targets.length) return;
    if ((await this.lists.lock(orgId, listIds, em)).length !== listIds.length)
      throw options.missingList?.() ?? new NotFoundError('Contact list');
    const contactIds = targets.map((t) => t.contactId);
    for (const listId of listIds)
      await this.lists.subscribe(orgId, listId, contactIds, this.clock.now(), em);
  }

  /**
   * Sets each target's tag ids (sorted): the options' tags on every one, each row's own tags on
   * its contact. Creates the tags the organization does not have yet.
   */
  private async resolveTags(
    em: EntityManager,
    orgId: OrgId,
    targets: BulkTarget[],
    commonTags: string[],
  ): Promise<void> {
    const names = new Set<string>(commonTags);
    for (const t of targets) for (const n of t.tags) names.add(n);
    if (!names.size) return;
    const tags = await this.tags.ensure(em, orgId, [...names]);
    const idOf = new Map(tags.map((t) => [t.name.toLowerCase(), t.id.toLowerCase()]));
    const id = (name: string) => idOf.get(name.trim().toLowerCase());
    const commonIds = commonTags.map(id).filter((tagId): tagId is string => !!tagId);
    for (const t of targets) {
      const ids = new Set<string>(commonIds);
      for (const n of t.tags) {
        const tagId = id(n);
        if (tagId) ids.add(tagId);
      }
      t.tagIds = [...ids].sort();
    }
  }
}
