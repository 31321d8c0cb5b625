// All SQL of segments, their members and the contacts a selection picks.
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { PageRequest, pageOffset } from '../common/pagination';
import { query, sql, Sql } from '../database/sql';
import { inTransaction } from '../database/transaction';
import { ContactSegment, SegmentType } from './contact-segment.entity';
import type { RuleGroupJson } from './segment-rules';

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
 * Every method takes the organization id first, and a selection predicate is always ANDed after
 * `c.organization_id = <organization>`, so a rule can never reach another organization.
 */
@Injectable()
export class SegmentRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  transaction<T>(work: (em: EntityManager) => Promise<T>): Promise<T> {
    return inTransaction(this.ds, work);
  }

  private em(em?: EntityManager): EntityManager {
    return em ?? this.ds.manager;
  }

  async insert(organizationId: string, s: NewSegment, em?: EntityManager): Promise<string> {
    const result = await this.em(em).insert(ContactSegment, {
      organizationId,
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
    organizationId: string,
    id: string,
    opts: { em?: EntityManager; lock?: boolean } = {},
  ): Promise<ContactSegment | null> {
    return this.em(opts.em).findOne(ContactSegment, {
      where: { organizationId, id },
      ...(opts.lock ? { lock: { mode: 'pessimistic_write' as const } } : {}),
    });
  }

  list(organizationId: string, page: PageRequest): Promise<[ContactSegment[], number]> {
    return this.ds.manager.findAndCount(ContactSegment, {
      where: { organizationId },
      order: { createdAt: 'DESC', id: 'DESC' },
      skip: pageOffset(page),
      take: page.limit,
    });
  }

  async update(
    organizationId: string,
    id: string,
    patch: Partial<Pick<ContactSegment, 'name' | 'description' | 'rules'>>,
  ): Promise<void> {
    await this.ds.manager.update(ContactSegment, { organizationId, id }, patch);
  }

  /** True when a row was deleted; its memberships go with it (cascade). */
  async delete(organizationId: string, id: string): Promise<boolean> {
    const result = await this.ds.manager.delete(ContactSegment, { organizationId, id });
    return (result.affected ?? 0) > 0;
  }

  /** How many of the given (distinct) contact ids exist in the organization. */
  async countExistingContacts(
    organizationId: string,
    contactIds: string[],
    em?: EntityManager,
  ): Promise<number> {
    const [row] = await query<{ n: number }>(
      this.em(em),
      sql`SELECT count(*)::int AS n FROM contacts
           WHERE organization_id = ${organizationId} AND id = ANY(${contactIds}::uuid[])`,
    );
    return row.n;
  }

  /** Adds memberships (existing ones untouched); the count trigger adjusts contact_count. */
  async addMembers(
    organizationId: string,
    segmentId: string,
    contactIds: string[],
    em: EntityManager,
  ): Promise<void> {
    await query(
      em,
      sql`INSERT INTO contact_segment_members (segment_id, contact_id, organization_id)
          SELECT ${segmentId}, c.id, c.organization_id FROM contacts c
           WHERE c.organization_id = ${organizationId} AND c.id = ANY(${contactIds}::uuid[])
           ORDER BY c.id
          ON CONFLICT (segment_id, contact_id) DO NOTHING`,
    );
  }

  async removeMembers(
    organizationId: string,
    segmentId: string,
    contactIds: string[],
    em: EntityManager,
  ): Promise<void> {
    await query(
      em,
      sql`DELETE FROM contact_segment_members
           WHERE organization_id = ${organizationId} AND segment_id = ${segmentId}
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

  async countContacts(organizationId: string, selection: Sql): Promise<number> {
    const [row] = await this.selectionQuery<{ n: number }>(
      sql`SELECT count(*)::int AS n FROM contacts c
           WHERE c.organization_id = ${organizationId} AND ${selection}`,
    );
    return row.n;
  }

  /** Ids of a page of the selection, newest first (createdAt, then id, descending). */
  async pageContactIds(
    organizationId: string,
    selection: Sql,
    page: PageRequest,
  ): Promise<string[]> {
    const rows = await this.selectionQuery<{ id: string }>(
      sql`SELECT c.id FROM contacts c
           WHERE c.organization_id = ${organizationId} AND ${selection}
           ORDER BY c.created_at DESC, c.id DESC
           LIMIT ${page.limit}::int OFFSET ${pageOffset(page)}::int`,
    );
    return rows.map((r) => r.id);
  }
}
