// All SQL of one organization's memberships: which users belong to it, with which role.
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { OrgId } from '../common/org-id';
import { Membership, Role } from './user.entity';

@Injectable()
export class MembershipRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  async roleIn(organizationId: OrgId, userId: string, em?: EntityManager): Promise<Role | null> {
    const m = await (em ?? this.ds.manager).findOneBy(Membership, { organizationId, userId });
    return m?.role ?? null;
  }

  async addMember(
    organizationId: OrgId,
    userId: string,
    role: Role,
    em: EntityManager,
  ): Promise<void> {
    await em.insert(Membership, { organizationId, userId, role });
  }
}
