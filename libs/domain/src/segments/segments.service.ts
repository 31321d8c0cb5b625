// Segments (§6): CRUD, static membership, preview and the contacts of a segment.
import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { Clock } from '../common/clock';
import { ContactView } from '../contacts/contact-views';
import { ContactsService } from '../contacts/contacts.service';
import { Page, PageRequest } from '../common/pagination';
import { ConflictError, NotFoundError, ValidationFailedError } from '../errors/domain-errors';
import type { Sql } from '../database/sql';
import { ContactSegment, SegmentType } from './contact-segment.entity';
import { RuleGroup, rulesToJson } from './segment-rules';
import { compileRules, segmentPredicate } from './segment-rules.compiler';
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

/**
 * A dynamic segment is compiled to SQL on every request, so it follows contact changes with no
 * refresh step.
 */
@Injectable()
export class SegmentsService {
  constructor(
    private readonly repo: SegmentRepository,
    private readonly clock: Clock,
    private readonly contactViews: ContactsService,
  ) {}

  async create(organizationId: string, input: CreateSegmentInput): Promise<ContactSegment> {
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
    const id = await this.repo.transaction(async (em) => {
      const segmentId = await this.repo.insert(
        organizationId,
        {
          name: input.name,
          description: input.description ?? null,
          type: input.type,
          rules: rules && rulesToJson(rules),
        },
        em,
      );
      if (contactIds.length) {
        await this.assertContactsExist(organizationId, contactIds, em);
        await this.repo.addMembers(organizationId, segmentId, contactIds, em);
      }
      return segmentId;
    });
    return this.get(organizationId, id);
  }

  async list(
    organizationId: string,
    page: PageRequest,
    withCounts = false,
  ): Promise<Page<ContactSegment>> {
    const [items, total] = await this.repo.list(organizationId, page);
    // One count at a time: each can scan many contacts, and they share the pool with every request.
    if (withCounts) for (const s of items) await this.fillCount(s);
    return new Page(items, total, page);
  }

  async get(organizationId: string, id: string, withCounts = false): Promise<ContactSegment> {
    const segment = await this.repo.find(organizationId, id);
    if (!segment) throw new NotFoundError('Segment');
    if (withCounts) await this.fillCount(segment);
    return segment;
  }

  async update(
    organizationId: string,
    id: string,
    input: UpdateSegmentInput,
  ): Promise<ContactSegment> {
    const segment = await this.get(organizationId, id);
    const patch: Partial<Pick<ContactSegment, 'name' | 'description' | 'rules'>> = {};
    if (input.name !== undefined) patch.name = input.name;
    if (input.description !== undefined) patch.description = input.description;
    if (input.rules !== undefined) {
      if (segment.type === 'static') {
        throw new ConflictError('A static segment has no rules; change its members instead');
      }
      patch.rules = rulesToJson(parseRules(input.rules));
    }
    if (Object.keys(patch).length) await this.repo.update(organizationId, id, patch);
    return this.get(organizationId, id);
  }

  async remove(organizationId: string, id: string): Promise<void> {
    if (!(await this.repo.delete(organizationId, id))) throw new NotFoundError('Segment');
  }

  /**
   * Adds contacts to a static segment (already-members are left as they are). Every id must name a
   * contact of the organization, else 404 and nothing changes; contactCount moves in the same
   * transaction.
   */
  addMembers(organizationId: string, id: string, contactIds: string[]): Promise<ContactSegment> {
    return this.changeMembers(organizationId, id, contactIds, 'add');
  }

  /** Removes contacts from a static segment; ids that are not members are ignored. */
  removeMembers(organizationId: string, id: string, contactIds: string[]): Promise<ContactSegment> {
    return this.changeMembers(organizationId, id, contactIds, 'remove');
  }

  private changeMembers(
    organizationId: string,
    id: string,
    contactIds: string[],
    change: 'add' | 'remove',
  ): Promise<ContactSegment> {
    const ids = unique(contactIds);
    return this.repo.transaction(async (em) => {
      await this.lockStatic(organizationId, id, em);
      await this.assertContactsExist(organizationId, ids, em);
      if (change === 'add') await this.repo.addMembers(organizationId, id, ids, em);
      else await this.repo.removeMembers(organizationId, id, ids, em);
      return (await this.repo.find(organizationId, id, { em }))!;
    });
  }

  /** The count and the first contacts that rules would select, without storing anything. */
  async preview(organizationId: string, rules: unknown): Promise<SegmentPreview> {
    const sel = this.compile(organizationId, parseRules(rules));
    const [count, ids] = await Promise.all([
      this.repo.countContacts(organizationId, sel),
      this.repo.pageContactIds(organizationId, sel, { page: 1, limit: PREVIEW_SAMPLE_SIZE }),
    ]);
    return { count, sample: await this.load(organizationId, ids) };
  }

  /** A page of the segment's contacts (newest first) with emails and tags. */
  async contacts(
    organizationId: string,
    id: string,
    page: PageRequest,
  ): Promise<Page<ContactView>> {
    const segment = await this.get(organizationId, id);
    const sel = this.selection(segment);
    const [ids, total] = await Promise.all([
      this.repo.pageContactIds(organizationId, sel, page),
      segment.type === 'static'
        ? Promise.resolve(segment.contactCount ?? 0)
        : this.repo.countContacts(organizationId, sel),
    ]);
    return new Page(await this.load(organizationId, ids), total, page);
  }

  /** The contacts' views in page order, emails and tags batch-loaded by the contacts area. */
  private load(organizationId: string, ids: string[]): Promise<ContactView[]> {
    return this.contactViews.loadViews(organizationId, ids, CONTACT_LOAD);
  }

  /**
   * The segment's members as a predicate over `contacts c`, for other areas' SQL (e.g. a campaign
   * audience); the caller must also scope `c.organization_id` itself. 404 when the segment is not
   * the organization's.
   */
  async contactSelection(organizationId: string, id: string): Promise<Sql> {
    return this.selection(await this.get(organizationId, id));
  }

  private selection(segment: ContactSegment): Sql {
    return segmentPredicate(segment, this.clock.now());
  }

  private compile(organizationId: string, tree: RuleGroup): Sql {
    return compileRules(tree, { now: this.clock.now(), organizationId });
  }

  private async fillCount(segment: ContactSegment): Promise<void> {
    if (segment.type === 'dynamic') {
      segment.contactCount = await this.repo.countContacts(
        segment.organizationId,
        this.selection(segment),
      );
    }
  }

  private async lockStatic(organizationId: string, id: string, em: EntityManager): Promise<void> {
    const segment = await this.repo.find(organizationId, id, { em, lock: true });
    if (!segment) throw new NotFoundError('Segment');
    if (segment.type !== 'static') {
      throw new ConflictError('Members can only be changed on a static segment');
    }
  }

  private async assertContactsExist(
    organizationId: string,
    ids: string[],
    em: EntityManager,
  ): Promise<void> {
    const found = await this.repo.countExistingContacts(organizationId, ids, em);
    if (found !== ids.length) throw new NotFoundError('Contact');
  }
}

function unique(ids: string[]): string[] {
  return [...new Set(ids.map((id) => id.toLowerCase()))];
}
