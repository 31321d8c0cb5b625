// All SQL of segments, their members and the contacts a selection picks.
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { OrgId } from '../common/org-id';
import { PageRequest, pageOffset } from '../common/pagination';
import { empty, query, sql, Sql } from '../database/sql';
import { ContactSegment, SegmentType } from './contact-segment.entity';
import type { ContactSelection, WalkKey, WalkPage } from './contact-selection';
import type { RuleGroupJson } from './segment-rules';
import { selectionPredicate } from './segment-rules.compiler';

export interface NewSegment {
  name: string;
  description: string | null;
  type: SegmentType;
  rules: RuleGroupJson | null;
}

/**
 * Session settings for a selection query, local to its transaction: a count can semi-join every
 * candidate contact with its list memberships or emails, which wants more than the default 4 MB
 * of work_mem to stay in memory; parallel workers would each rebuild the same hash; and JIT
 * compilation, started on cost estimates, costs more than such a query runs.
 */
const SELECTION_SETTINGS = sql`SELECT set_config('work_mem', '32MB', true), set_config('jit', 'off', true),
       set_config('max_parallel_workers_per_gather', '0', true)`;

/**
 * Every method takes the organization id first, and a selection is rendered here alone, its
 * predicate always ANDed after `c.organization_id = <organization>`, so a rule can never reach
 * another organization.
 */
@Injectable()
export class SegmentRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  private em(em?: EntityManager): EntityManager {
    return em ?? this.ds.manager;
  }

  async insert(orgId: OrgId, s: NewSegment, em?: EntityManager): Promise<string> {
    const result = await this.em(em).insert(ContactSegment, {
      organizationId: orgId,
      name: s.name,
      description: s.description,
      type: s.type,
      rules: s.rules,
      contactCount: s.type === 'static' ? 0 : null,
    });
    return (result.identifiers[0] as { id: string }).id;
  }

  /** The segment, locked FOR UPDATE with `lock` (inside a transaction). */
  find(
    orgId: OrgId,
    id: string,
    opts: { em?: EntityManager; lock?: boolean } = {},
  ): Promise<ContactSegment | null> {
    return this.em(opts.em).findOne(ContactSegment, {
      where: { organizationId: orgId, id },
      ...(opts.lock ? { lock: { mode: 'pessimistic_write' as const } } : {}),
    });
  }

  list(orgId: OrgId, page: PageRequest): Promise<[ContactSegment[], number]> {
    return this.ds.manager.findAndCount(ContactSegment, {
      where: { organizationId: orgId },
      order: { createdAt: 'DESC', id: 'DESC' },
      skip: pageOffset(page),
      take: page.limit,
    });
  }

  async update(
    orgId: OrgId,
    id: string,
    patch: Partial<Pick<ContactSegment, 'name' | 'description' | 'rules'>>,
  ): Promise<void> {
    await this.ds.manager.update(ContactSegment, { organizationId: orgId, id }, patch);
  }

  /** True when a row was deleted; its memberships go with it (cascade). */
  async delete(orgId: OrgId, id: string): Promise<boolean> {
    const result = await this.ds.manager.delete(ContactSegment, { organizationId: orgId, id });
    return (result.affected ?? 0) > 0;
  }

  /** How many of the given (distinct) contact ids exist in the organization. */
  async countExistingContacts(
    orgId: OrgId,
    contactIds: string[],
    em?: EntityManager,
  ): Promise<number> {
    const [row] = await query<{ n: number }>(
      this.em(em),
      sql`SELECT count(*)::int AS n FROM contacts
           WHERE organization_id = ${orgId} AND id = ANY(${contactIds}::uuid[])`,
    );
    return row.n;
  }

  /** Adds memberships (existing ones untouched); the count trigger adjusts contact_count. */
  async addMembers(
    orgId: OrgId,
    segmentId: string,
    contactIds: string[],
    em: EntityManager,
  ): Promise<void> {
    await query(
      em,
      sql`INSERT INTO contact_segment_members (segment_id, contact_id, organization_id)
          SELECT ${segmentId}, c.id, c.organization_id FROM contacts c
           WHERE c.organization_id = ${orgId} AND c.id = ANY(${contactIds}::uuid[])
           ORDER BY c.id
          ON CONFLICT (segment_id, contact_id) DO NOTHING`,
    );
  }

  async removeMembers(
    orgId: OrgId,
    segmentId: string,
    contactIds: string[],
    em: EntityManager,
  ): Promise<void> {
    await query(
      em,
      sql`DELETE FROM contact_segment_members
           WHERE organization_id = ${orgId} AND segment_id = ${segmentId}
             AND contact_id = ANY(${contactIds}::uuid[])`,
    );
  }

  /** Runs a selection query in its own transaction with SELECTION_SETTINGS. */
  private selectionQuery<T>(q: Sql): Promise<T[]> {
    return this.ds.transaction(async (em) => {
      await query(em, SELECTION_SETTINGS);
      return query<T>(em, q);
    });
  }

  async countContacts(orgId: OrgId, selection: ContactSelection): Promise<number> {
    const [row] = await this.selectionQuery<{ n: number }>(
      sql`SELECT count(*)::int AS n FROM contacts c
           WHERE c.organization_id = ${orgId} AND ${selectionPredicate(orgId, selection)}`,
    );
    return row.n;
  }

  /** Ids of a page of the selection, newest first (createdAt, then id, descending). */
  async pageContactIds(
    orgId: OrgId,
    selection: ContactSelection,
    page: PageRequest,
  ): Promise<string[]> {
    const rows = await this.selectionQuery<{ id: string }>(
      sql`SELECT c.id FROM contacts c
           WHERE c.organization_id = ${orgId} AND ${selectionPredicate(orgId, selection)}
           ORDER BY c.created_at DESC, c.id DESC
           LIMIT ${page.limit}::int OFFSET ${pageOffset(page)}::int`,
    );
    return rows.map((r) => r.id);
  }

  /**
   * Up to `limit` ids of the selection after `after` (from the start when null), one statement a
   * batch however far the walk is: a static segment's membership rows by contact id (the primary
   * key), a rule tree's contacts by (created_at, id) descending (the organization's created_at
   * index). `next` is null once a batch comes back short.
   */
  async walkContactIds(
    orgId: OrgId,
    selection: ContactSelection,
    after: WalkKey | null,
    limit: number,
  ): Promise<WalkPage> {
    if (selection.kind === 'members') {
      const rows = await query<{ id: string }>(
        this.ds,
        sql`SELECT sm.contact_id AS id FROM contact_segment_members sm
             WHERE sm.organization_id = ${orgId} AND sm.segment_id = ${selection.segmentId}
               ${after ? sql`AND sm.contact_id > ${after.id}::uuid` : empty}
             ORDER BY sm.contact_id
             LIMIT ${limit}::int`,
      );
      const last = rows.length === limit ? rows[rows.length - 1] : null;
      return { ids: rows.map((r) => r.id), next: last && { id: last.id, createdAt: null } };
    }
    const rows = await this.selectionQuery<{ id: string; created_at: string }>(
      sql`SELECT c.id, c.created_at::text AS created_at FROM contacts c
           WHERE c.organization_id = ${orgId} AND ${selectionPredicate(orgId, selection)}
             ${after ? sql`AND (c.created_at, c.id) < (${after.createdAt}::timestamptz, ${after.id}::uuid)` : empty}
           ORDER BY c.created_at DESC, c.id DESC
           LIMIT ${limit}::int`,
    );
    const last = rows.length === limit ? rows[rows.length - 1] : null;
    return {
      ids: rows.map((r) => r.id),
      next: last && { id: last.id, createdAt: last.created_at },
    };
  }
}
