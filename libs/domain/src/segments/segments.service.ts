// Segments (§6): CRUD, static membership, preview and the contacts of a segment.
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { Clock } from '../common/clock';
import type { OrgId } from '../common/org-id';
import { ContactView } from '../contacts/contact-views';
import { ContactsService } from '../contacts/contacts.service';
import { Page, PageRequest } from '../common/pagination';
import { inTransaction } from '../database/transaction';
import { ConflictError, NotFoundError, ValidationFailedError } from '../errors/domain-errors';
import { ContactSegment, SegmentType } from './contact-segment.entity';
import type { ContactSelection, WalkKey } from './contact-selection';
import { RuleGroup, rulesToJson } from './segment-rules';
import { parseRules } from './segment-rules.parser';
import { SegmentRepository } from './segment.repository';

export interface CreateSegmentInput {
  name: string;
  description?: string | null;
  type: SegmentType;
  rules?: unknown;
  contactIds?: string[];
}

export interface UpdateSegmentInput {
  name?: string;
  description?: string | null;
  rules?: unknown;
}

export interface SegmentPreview {
  count: number;
  sample: ContactView[];
}

/** What a segment's contacts carry (spec: emails and tags preloaded). */
const CONTACT_LOAD = { channels: ['email'] as const, tags: true };

export const PREVIEW_SAMPLE_SIZE = 10;
/** Contact ids per batch handed to other areas (`contactIdBatches`), each batch one statement. */
export const CONTACT_ID_BATCH_SIZE = 5000;

/**
 * A dynamic segment is compiled to SQL on every request, so it follows contact changes with no
 * refresh step. Other areas receive a segment's contacts as batches of ids, never as SQL.
 */
@Injectable()
export class SegmentsService {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly repo: SegmentRepository,
    private readonly clock: Clock,
    private readonly contactViews: ContactsService,
  ) {}

  async create(orgId: OrgId, input: CreateSegmentInput): Promise<ContactSegment> {
    let rules: RuleGroup | null = null;
    if (input.type === 'dynamic') {
      if (input.contactIds !== undefined) {
        throw ValidationFailedError.field(
          'contactIds',
          'unknown',
          'contactIds is only accepted for static segments',
        );
      }
      rules = parseRules(input.rules);
    } else if (input.rules !== undefined && input.rules !== null) {
      throw ValidationFailedError.field(
        'rules',
        'unknown',
        'rules is only accepted for dynamic segments',
      );
    }
    const contactIds = unique(input.contactIds ?? []);
    const id = await inTransaction(this.ds, async (em) => {
      const segmentId = await this.repo.insert(
        orgId,
        {
          name: input.name,
          description: input.description ?? null,
          type: input.type,
          rules: rules && rulesToJson(rules),
        },
        em,
      );
      if (contactIds.length) {
        await this.assertContactsExist(orgId, contactIds, em);
        await this.repo.addMembers(orgId, segmentId, contactIds, em);
      }
      return segmentId;
    });
    return this.get(orgId, id);
  }

  async list(orgId: OrgId, page: PageRequest, withCounts = false): Promise<Page<ContactSegment>> {
    const [items, total] = await this.repo.list(orgId, page);
    // One count at a time: each can scan many contacts, and they share the pool with every request.
    if (withCounts) for (const s of items) await this.fillCount(orgId, s);
    return new Page(items, total, page);
  }

  async get(orgId: OrgId, id: string, withCounts = false): Promise<ContactSegment> {
    const segment = await this.repo.find(orgId, id);
    if (!segment) throw new NotFoundError('Segment');
    if (withCounts) await this.fillCount(orgId, segment);
    return segment;
  }

  async update(orgId: OrgId, id: string, input: UpdateSegmentInput): Promise<ContactSegment> {
    const segment = await this.get(orgId, id);
    const patch: Partial<Pick<ContactSegment, 'name' | 'description' | 'rules'>> = {};
    if (input.name !== undefined) patch.name = input.name;
    if (input.description !== undefined) patch.description = input.description;
    if (input.rules !== undefined) {
      if (segment.type === 'static') {
        throw new ConflictError('A static segment has no rules; change its members instead');
      }
      patch.rules = rulesToJson(parseRules(input.rules));
    }
    if (Object.keys(patch).length) await this.repo.update(orgId, id, patch);
    return this.get(orgId, id);
  }

  async remove(orgId: OrgId, id: string): Promise<void> {
    if (!(await this.repo.delete(orgId, id))) throw new NotFoundError('Segment');
  }

  /**
   * Adds contacts to a static segment (already-members are left as they are). Every id must name a
   * contact of the organization, else 404 and nothing changes; contactCount moves in the same
   * transaction.
   */
  addMembers(orgId: OrgId, id: string, contactIds: string[]): Promise<ContactSegment> {
    return this.changeMembers(orgId, id, contactIds, 'add');
  }

  /** Removes contacts from a static segment; ids that are not members are ignored. */
  removeMembers(orgId: OrgId, id: string, contactIds: string[]): Promise<ContactSegment> {
    return this.changeMembers(orgId, id, contactIds, 'remove');
  }

  private changeMembers(
    orgId: OrgId,
    id: string,
    contactIds: string[],
    change: 'add' | 'remove',
  ): Promise<ContactSegment> {
    const ids = unique(contactIds);
    return inTransaction(this.ds, async (em) => {
      await this.lockStatic(orgId, id, em);
      await this.assertContactsExist(orgId, ids, em);
      if (change === 'add') await this.repo.addMembers(orgId, id, ids, em);
      else await this.repo.removeMembers(orgId, id, ids, em);
      return (await this.repo.find(orgId, id, { em }))!;
    });
  }

  /** The count and the first contacts that rules would select, without storing anything. */
  async preview(orgId: OrgId, rules: unknown): Promise<SegmentPreview> {
    const sel: ContactSelection = {
      kind: 'rules',
      rules: parseRules(rules),
      now: this.clock.now(),
    };
    const [count, ids] = await Promise.all([
      this.repo.countContacts(orgId, sel),
      this.repo.pageContactIds(orgId, sel, { page: 1, limit: PREVIEW_SAMPLE_SIZE }),
    ]);
    return { count, sample: await this.load(orgId, ids) };
  }

  /** A page of the segment's contacts (newest first) with emails and tags. */
  async contacts(orgId: OrgId, id: string, page: PageRequest): Promise<Page<ContactView>> {
    const segment = await this.get(orgId, id);
    const sel = this.selection(segment);
    const [ids, total] = await Promise.all([
      this.repo.pageContactIds(orgId, sel, page),
      segment.type === 'static'
        ? Promise.resolve(segment.contactCount ?? 0)
        : this.repo.countContacts(orgId, sel),
    ]);
    return new Page(await this.load(orgId, ids), total, page);
  }

  /** The contacts' views in page order, emails and tags batch-loaded by the contacts area. */
  private load(orgId: OrgId, ids: string[]): Promise<ContactView[]> {
    return this.contactViews.loadViews(orgId, ids, CONTACT_LOAD);
  }

  /**
   * The segment's contacts for other areas (e.g. a campaign audience), as batches of at most
   * `size` ids: each id a contact of the organization, once, and no batch empty. A dynamic
   * segment's rules are evaluated at the instant of this call for every batch. 404 when the
   * segment is not the organization's.
   */
  async contactIdBatches(
    orgId: OrgId,
    id: string,
    size = CONTACT_ID_BATCH_SIZE,
  ): Promise<AsyncIterable<string[]>> {
    const selection = this.selection(await this.get(orgId, id));
    return this.walk(orgId, selection, size);
  }

  private async *walk(
    orgId: OrgId,
    selection: ContactSelection,
    size: number,
  ): AsyncGenerator<string[]> {
    let after: WalkKey | null = null;
    do {
      const page = await this.repo.walkContactIds(orgId, selection, after, size);
      if (page.ids.length) yield page.ids;
      after = page.next;
    } while (after);
  }

  /** Who the segment picks now: its member rows, or its rules evaluated at the clock's instant. */
  private selection(segment: ContactSegment): ContactSelection {
    return segment.type === 'dynamic'
      ? { kind: 'rules', rules: parseRules(segment.rules), now: this.clock.now() }
      : { kind: 'members', segmentId: segment.id };
  }

  private async fillCount(orgId: OrgId, segment: ContactSegment): Promise<void> {
    if (segment.type === 'dynamic') {
      segment.contactCount = await this.repo.countContacts(orgId, this.selection(segment));
    }
  }

  private async lockStatic(orgId: OrgId, id: string, em: EntityManager): Promise<void> {
    const segment = await this.repo.find(orgId, id, { em, lock: true });
    if (!segment) throw new NotFoundError('Segment');
    if (segment.type !== 'static') {
      throw new ConflictError('Members can only be changed on a static segment');
    }
  }

  private async assertContactsExist(orgId: OrgId, ids: string[], em: EntityManager): Promise<void> {
    const found = await this.repo.countExistingContacts(orgId, ids, em);
    if (found !== ids.length) throw new NotFoundError('Contact');
  }
}

function unique(ids: string[]): string[] {
  return [...new Set(ids.map((id) => id.toLowerCase()))];
}
