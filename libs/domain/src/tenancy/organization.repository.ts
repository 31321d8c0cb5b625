// All SQL of organizations.
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { OrgId } from '../common/org-id';
import { Organization } from './organization.entity';

@Injectable()
export class OrganizationRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  insert(fields: Partial<Organization>, em: EntityManager): Promise<Organization> {
    return em.save(em.create(Organization, fields));
  }

  find(organizationId: OrgId): Promise<Organization | null> {
    return this.ds.manager.findOneBy(Organization, { id: organizationId });
  }

  async update(organizationId: OrgId, patch: Partial<Organization>): Promise<void> {
    await this.ds.manager.update(Organization, { id: organizationId }, patch);
  }
}
