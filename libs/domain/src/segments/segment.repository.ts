// All SQL of the segments area. Every method takes the organization id; a selection predicate is
// always ANDed after `c.organization_id = $1`, so a rule can never reach another organization.
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { PageRequest, pageOffset } from '../common/pagination';
import { ContactSegment, SegmentType } from './contact-segment.entity';
import type { RuleGroupJson } from './segment-rules';

/**
 * A predicate over `contacts c` and its bound values. In this repository the placeholders start at
 * `$2` (`$1` is the organization).
 */
export interface ContactSelection {
  predicate: string;
  params: unknown[];
}

export interface NewSegment {
  name: string;
  description: string | null;
  type: SegmentType;
  rules: RuleGroupJson | null;
}

@Injectable()
export class SegmentRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  transaction<T>(work: (em: EntityManager) => Promise<T>): Promise<T> {
    return this.ds.transaction(work);
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

  async find(
    organizationId: string,
    id: string,
    opts: { em?: EntityManager; lock?: boolean } = {},
  ): Promise<ContactSegment | null> {
    const qb = this.em(opts.em)
      .getRepository(ContactSegment)
      .createQueryBuilder('s')
      .where('s.id = :id AND s.organizationId = :organizationId', { id, organizationId });
    if (opts.lock) qb.setLock('pessimistic_write');
    return qb.getOne();
  }

  async list(organizationId: string, page: PageRequest): Promise<[ContactSegment[], number]> {
    return this.ds.getRepository(ContactSegment).findAndCount({
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
    await this.ds.getRepository(ContactSegment).update({ id, organizationId }, patch);
  }

  /** True when a row was deleted; its memberships go with it (cascade). */
  async delete(organizationId: string, id: string): Promise<boolean> {
    const result = await this.ds.getRepository(ContactSegment).delete({ id, organizationId });
    return (result.affected ?? 0) > 0;
  }

  /** How many of the given (distinct) contact ids exist in the organization. */
  async countExistingContacts(
    organizationId: string,
    contactIds: string[],
    em?: EntityManager,
  ): Promise<number> {
    const [row] = await this.em(em).query<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM contacts WHERE organization_id = $1 AND id = ANY($2::uuid[])`,
      [organizationId, contactIds],
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
    await em.query(
      `INSERT INTO contact_segment_members (segment_id, contact_id, organization_id)
       SELECT $2, c.id, c.organization_id FROM contacts c
        WHERE c.organization_id = $1 AND c.id = ANY($3::uuid[])
        ORDER BY c.id
       ON CONFLICT (segment_id, contact_id) DO NOTHING`,
      [organizationId, segmentId, contactIds],
    );
  }

  async removeMembers(
    organizationId: string,
    segmentId: string,
    contactIds: string[],
    em: EntityManager,
  ): Promise<void> {
    await em.query(
      `DELETE FROM contact_segment_members
        WHERE organization_id = $1 AND segment_id = $2 AND contact_id = ANY($3::uuid[])`,
      [organizationId, segmentId, contactIds],
    );
  }

  /**
   * Runs a selection query with the session settings measured on 1,000,000 contacts
   * (bench/segments.ts): a count can semi-join every candidate contact with its list memberships
   * or emails (tags are a test on contacts.tag_ids), and 4 MB of work_mem spilled such a hash to
   * disk; parallel workers each rebuilt the same hash (slower on 2 cores); JIT compilation, which
   * starts on cost estimates, added up to a second to queries that run in a few hundred ms.
   */
  private tuned<T>(sql: string, params: unknown[]): Promise<T> {
    return this.ds.transaction(async (em) => {
      await em.query(
        `SELECT set_config('work_mem', '32MB', true), set_config('jit', 'off', true),
                set_config('max_parallel_workers_per_gather', '0', true)`,
      );
      return em.query<T>(sql, params);
    });
  }

  async countContacts(organizationId: string, sel: ContactSelection): Promise<number> {
    const [row] = await this.tuned<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM contacts c WHERE c.organization_id = $1 AND ${sel.predicate}`,
      [organizationId, ...sel.params],
    );
    return row.n;
  }

  /** Ids of a page of the selection, newest first (createdAt, then id, descending). */
  async pageContactIds(
    organizationId: string,
    sel: ContactSelection,
    page: PageRequest,
  ): Promise<string[]> {
    const n = sel.params.length + 2;
    const rows = await this.tuned<{ id: string }[]>(
      `SELECT c.id FROM contacts c
        WHERE c.organization_id = $1 AND ${sel.predicate}
        ORDER BY c.created_at DESC, c.id DESC
        LIMIT $${n}::int OFFSET $${n + 1}::int`,
      [organizationId, ...sel.params, page.limit, pageOffset(page)],
    );
    return rows.map((r) => r.id);
  }
}
